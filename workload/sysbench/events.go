package sysbench

import "context"

// The events of the scripts, each as its event() function runs it, and the
// execute_* helpers of oltp_common.lua they share. Each helper draws its
// own table, as get_table_num does per helper, so the statement groups of
// one transaction may touch different tables.

// eventPointSelect is oltp_point_select.lua: one point select (the script
// sets point_selects to 1).
func eventPointSelect(w *worker, ctx context.Context) error {
	return w.pointSelects(ctx, 1)
}

// eventReadOnly is oltp_read_only.lua.
func eventReadOnly(w *worker, ctx context.Context) error {
	if err := w.beginUnlessSkipped(ctx); err != nil {
		return err
	}
	if err := w.pointSelects(ctx, w.cfg.pointSelects); err != nil {
		return err
	}
	if err := w.rangeSelects(ctx); err != nil {
		return err
	}
	return w.commitUnlessSkipped(ctx)
}

// eventReadWrite is oltp_read_write.lua.
func eventReadWrite(w *worker, ctx context.Context) error {
	if err := w.beginUnlessSkipped(ctx); err != nil {
		return err
	}
	if err := w.pointSelects(ctx, w.cfg.pointSelects); err != nil {
		return err
	}
	if err := w.rangeSelects(ctx); err != nil {
		return err
	}
	if err := w.writes(ctx); err != nil {
		return err
	}
	return w.commitUnlessSkipped(ctx)
}

// eventWriteOnly is oltp_write_only.lua.
func eventWriteOnly(w *worker, ctx context.Context) error {
	if err := w.beginUnlessSkipped(ctx); err != nil {
		return err
	}
	if err := w.writes(ctx); err != nil {
		return err
	}
	return w.commitUnlessSkipped(ctx)
}

// eventUpdateIndex is oltp_update_index.lua: index_updates updates of k.
func eventUpdateIndex(w *worker, ctx context.Context) error {
	return w.indexUpdates(ctx)
}

// eventUpdateNonIndex is oltp_update_non_index.lua: non_index_updates
// updates of c.
func eventUpdateNonIndex(w *worker, ctx context.Context) error {
	return w.nonIndexUpdates(ctx)
}

// eventDelete is oltp_delete.lua: one delete of a random id (and no
// insert: the table shrinks).
func eventDelete(w *worker, ctx context.Context) error {
	s := w.table()
	w.a.v = w.id()
	return w.exec(ctx, kDelete, s.delete, w.args1)
}

// eventInsert is oltp_insert.lua: one insert of a random k, c and pad into
// a random table, with the id left to the SERIAL column (--auto_inc on)
// or drawn from sysbench.rand.unique() shifted into the INTEGER range.
func eventInsert(w *worker, ctx context.Context) error {
	s := w.table()
	w.k.v = w.id()
	w.digits.fillC(w.cBuf)
	w.digits.fillPad(w.padBuf)
	if w.cfg.autoInc {
		return w.exec(ctx, kInsert, s.insertAuto, w.insertAutoArgs)
	}
	w.a.v = int64(w.unique.next()) - 1<<31
	return w.exec(ctx, kInsert, s.insert, w.insertArgs)
}

// eventRandomPoints is select_random_points.lua: one SELECT of the rows
// whose k is one of random_points values drawn from the worker's segment.
func eventRandomPoints(w *worker, ctx context.Context) error {
	for i := range w.points {
		w.points[i].v = w.segment.Next(w.r)
	}
	return w.query(ctx, kRandomPoints, w.randomSQL, w.pointArgs, w.rowDest)
}

// eventRandomRanges is select_random_ranges.lua: one count over
// number_of_ranges ranges [v, v+delta] of k, each v drawn from the
// worker's segment.
func eventRandomRanges(w *worker, ctx context.Context) error {
	for i := 0; i < len(w.points); i += 2 {
		v := w.segment.Next(w.r)
		w.points[i].v, w.points[i+1].v = v, v+int64(w.cfg.delta)
	}
	return w.query(ctx, kRandomRanges, w.randomSQL, w.pointArgs, w.numDest)
}

func (w *worker) beginUnlessSkipped(ctx context.Context) error {
	if w.cfg.skipTrx {
		return nil
	}
	return w.begin(ctx)
}

func (w *worker) commitUnlessSkipped(ctx context.Context) error {
	if w.cfg.skipTrx {
		return nil
	}
	return w.commit(ctx)
}

// pointSelects is execute_point_selects: n selects of c by id.
func (w *worker) pointSelects(ctx context.Context, n int) error {
	s := w.table()
	for range n {
		w.a.v = w.id()
		if err := w.query(ctx, kPointSelect, s.pointSelect, w.args1, w.cDest); err != nil {
			return err
		}
	}
	return nil
}

// rangeSelects runs execute_simple_ranges, execute_sum_ranges,
// execute_order_ranges and execute_distinct_ranges, when range_selects is
// on.
func (w *worker) rangeSelects(ctx context.Context) error {
	if !w.cfg.rangeSelects {
		return nil
	}
	c := w.cfg
	for _, r := range [...]struct {
		k opKind
		n int
	}{
		{kSimpleRange, c.simpleRanges},
		{kSumRange, c.sumRanges},
		{kOrderRange, c.orderRanges},
		{kDistinctRange, c.distinctRanges},
	} {
		if err := w.ranges(ctx, r.k, r.n); err != nil {
			return err
		}
	}
	return nil
}

// ranges is execute_range: n range selects of kind k over [id,
// id+range_size-1].
func (w *worker) ranges(ctx context.Context, k opKind, n int) error {
	s := w.table()
	sql, dest := s.simpleRange, w.cDest
	switch k {
	case kSumRange:
		sql, dest = s.sumRange, w.numDest
	case kOrderRange:
		sql = s.orderRange
	case kDistinctRange:
		sql = s.distinctRange
	}
	for range n {
		id := w.id()
		w.a.v, w.b.v = id, id+int64(w.cfg.rangeSize)-1
		if err := w.query(ctx, k, sql, w.args2, dest); err != nil {
			return err
		}
	}
	return nil
}

// writes runs execute_index_updates, execute_non_index_updates and
// execute_delete_inserts.
func (w *worker) writes(ctx context.Context) error {
	if err := w.indexUpdates(ctx); err != nil {
		return err
	}
	if err := w.nonIndexUpdates(ctx); err != nil {
		return err
	}
	return w.deleteInserts(ctx)
}

// indexUpdates is execute_index_updates: index_updates increments of k.
func (w *worker) indexUpdates(ctx context.Context) error {
	s := w.table()
	for range w.cfg.indexUpdates {
		w.a.v = w.id()
		if err := w.exec(ctx, kIndexUpdate, s.indexUpdate, w.args1); err != nil {
			return err
		}
	}
	return nil
}

// nonIndexUpdates is execute_non_index_updates: non_index_updates updates
// of c to a new random value.
func (w *worker) nonIndexUpdates(ctx context.Context) error {
	s := w.table()
	for range w.cfg.nonIndexUpdates {
		w.digits.fillC(w.cBuf)
		w.a.v = w.id()
		if err := w.exec(ctx, kNonIndexUpdate, s.nonIndexUpdate, w.updateArgs); err != nil {
			return err
		}
	}
	return nil
}

// deleteInserts is execute_delete_inserts: delete_inserts pairs of a
// delete of a random id and an insert of the same id with a random k, c
// and pad, so the table keeps its ids.
func (w *worker) deleteInserts(ctx context.Context) error {
	s := w.table()
	for range w.cfg.deleteInserts {
		w.a.v = w.id()
		w.k.v = w.id()
		w.digits.fillC(w.cBuf)
		w.digits.fillPad(w.padBuf)
		if err := w.exec(ctx, kDelete, s.delete, w.args1); err != nil {
			return err
		}
		if err := w.exec(ctx, kInsert, s.insert, w.insertArgs); err != nil {
			return err
		}
	}
	return nil
}
