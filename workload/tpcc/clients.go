package tpcc

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/workload"
)

// TPC-C from several clients (run --clients N --client-index I, or
// --warehouse-range A:B by hand): each client runs the terminals of its
// own contiguous range of home warehouses, as cockroach's --partitions
// assign them (partition I of N holds warehouses I*W/N+1 .. (I+1)*W/N),
// while remote order lines and payments are still drawn over every
// warehouse (clauses 2.4.1.5 and 2.5.1.2). Each client records, in its run
// log, sum(D_NEXT_O_ID) over every warehouse at the start and the end of
// its measurement interval and its audit counters (RunRecords); `stampede
// report` merges the clients' runs (MergeClients): tpmC from their
// New-Orders, efficiency over the warehouses of every client, NOPM once
// from the server's reads and the audits over every client's
// transactions. Client 0 alone runs the consistency checks after its run.

var (
	_ workload.ClientPartitioner = (*tpcc)(nil)
	_ workload.RunRecorder       = (*tpcc)(nil)
	_ workload.ClientMerger      = (*tpcc)(nil)
	_ workload.IntervalMerger    = (*tpcc)(nil)
)

// SetMergeInterval implements workload.IntervalMerger: report says the
// clients' common measurement interval, over which the counted figures
// of the merge are.
func (g *tpcc) SetMergeInterval(from, to time.Time) {
	if g.merged != nil {
		g.merged.common.from, g.merged.common.to = from, to
	}
}

// Names of the records a run keeps (RunRecords): sum(D_NEXT_O_ID) over
// every warehouse at the start and the end of the measurement interval,
// and the audit counters, each under auditRecord's prefix.
const (
	recNextStart   = "tpcc.sum_d_next_o_id.start"
	recNextEnd     = "tpcc.sum_d_next_o_id.end"
	auditRecPrefix = "tpcc.audit."
	// recHomeStart and recHomeEnd are the same sums over the client's own
	// home warehouses, read in the same statements: a merge of some of a
	// benchmark's clients, or of clients on different databases, counts
	// the New-Orders of the reported clients' warehouses only.
	recHomeStart = "tpcc.sum_d_next_o_id.home.start"
	recHomeEnd   = "tpcc.sum_d_next_o_id.home.end"
)

// registerClientFlags defines --warehouse-range.
func (g *tpcc) registerClientFlags(fs *pflag.FlagSet) {
	fs.StringVar(&g.whRangeFlag, "warehouse-range", "",
		"run the terminals of warehouses A to B only (A:B, of those loaded), for clients split by hand; remote order lines and payments still go to every warehouse (--clients splits the warehouses itself)")
	g.flags.Meta["warehouse-range"] = workload.FlagMeta{RuntimeOnly: true, PerClient: true}
}

// PartitionClients implements workload.ClientPartitioner: client index of
// count runs the terminals of its own contiguous range of the active
// warehouses (see home); Validate refuses more clients than warehouses.
func (g *tpcc) PartitionClients(index, count int) error {
	g.part = [2]int{index, count}
	return g.validateClients()
}

// parseRange parses --warehouse-range, "A:B".
func parseRange(s string) (a, b int64, err error) {
	x, y, ok := strings.Cut(s, ":")
	if ok {
		a, err = strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		if err == nil {
			b, err = strconv.ParseInt(strings.TrimSpace(y), 10, 64)
		}
	}
	if !ok || err != nil {
		return 0, 0, fmt.Errorf("--warehouse-range %q is not A:B, the first and last warehouse of this client's terminals (such as 1:10)", s)
	}
	return a, b, nil
}

// partRange returns client index's range of count among n warehouses,
// from 1: warehouses index*n/count+1 .. (index+1)*n/count, as cockroach's
// partitioner bounds its partitions.
func partRange(index, count, n int) (first, last int64) {
	return int64(index)*int64(n)/int64(count) + 1, int64(index+1) * int64(n) / int64(count)
}

// home returns the first and last home warehouse of the generator's
// terminals: the --warehouse-range given, the client's share (--clients),
// or the active warehouses, shifted to the tenant's in column mode. An
// unparsable range (which Validate refuses) counts as none.
func (g *tpcc) home() (first, last int64) {
	off := g.whOffset()
	if g.whRangeFlag != "" {
		if a, b, err := parseRange(g.whRangeFlag); err == nil {
			return off + a, off + b
		}
	}
	if g.part[1] > 0 {
		a, b := partRange(g.part[0], g.part[1], g.active())
		return off + a, off + b
	}
	return off + 1, off + int64(g.active())
}

// homeCount is the number of home warehouses: the generator's (home), or
// every client's together in a merged report (MergeClients).
func (g *tpcc) homeCount() int {
	if g.merged != nil {
		return g.merged.warehouses
	}
	first, last := g.home()
	if last < first {
		return 0
	}
	return int(last - first + 1)
}

// validateClients checks --warehouse-range and the client's share. The
// end of the range is checked against --warehouses once the count is
// the run's: given, taken from the load (AdoptWarehouses), or recorded
// in run.json (clientRange); a run given no --warehouses takes the
// load's count after its flags are parsed, and PreRun checks the range
// against it (checkClients).
func (g *tpcc) validateClients() error { return g.checkClients("", "") }

// warehousesSet says whether --warehouses is the run's count: given,
// taken from the load, or a generator made without flags (clientRange).
func (g *tpcc) warehousesSet() bool {
	return g.flags.FlagSet == nil || g.flags.Changed("warehouses")
}

// checkClients is validateClients; whose, when not empty, says what the
// count of a run given no --warehouses is (PreRun: the load's, or the
// default's under the null driver), and the end of the range is then
// checked against it; give is the refusal's advice.
func (g *tpcc) checkClients(whose, give string) error {
	if g.hammerdb() {
		// HammerDB's instances each draw among every warehouse: its
		// clients split nothing (hammerMerge adds their figures up).
		return nil
	}
	if g.whRangeFlag != "" {
		a, b, err := parseRange(g.whRangeFlag)
		switch {
		case err != nil:
			return err
		case g.part[1] > 0:
			return fmt.Errorf("--warehouse-range %s with --clients: --clients gives each client its own range of warehouses; give one or the other", g.whRangeFlag)
		case g.activeWarehouses > 0:
			return fmt.Errorf("--warehouse-range %s with --active-warehouses: both choose the warehouses the terminals run; give one or the other", g.whRangeFlag)
		case g.tenant > 0:
			return fmt.Errorf("--warehouse-range %s with tenants: a tenant's terminals run its own warehouses; leave it out", g.whRangeFlag)
		case a < 1 || b < a:
			return fmt.Errorf("--warehouse-range %s holds no warehouse: give A:B with 1 <= A <= B", g.whRangeFlag)
		case b > int64(g.warehouses) && g.adopted:
			return fmt.Errorf("--warehouse-range %s goes past warehouse %d, the last of the %s that init loaded (tpcc_meta): give a range within 1:%d", g.whRangeFlag, g.warehouses, nWarehouses(int64(g.warehouses)), g.warehouses)
		case b > int64(g.warehouses) && !g.warehousesSet() && whose != "":
			return fmt.Errorf("--warehouse-range %s goes past warehouse %d, the last of %s: give %s", g.whRangeFlag, g.warehouses, whose, give)
		case b > int64(g.warehouses) && g.warehousesSet():
			return fmt.Errorf("--warehouse-range %s goes past warehouse %d, the last of --warehouses %d: give the load's --warehouses, and a range within it", g.whRangeFlag, g.warehouses, g.warehouses)
		}
	}
	// Without --warehouses the count is the default until the run takes
	// the load's (AdoptWarehouses, or PreRun with whose): a client count
	// is judged against it then, not against a default the user did not
	// give (a dry run connects to nothing, and judges none).
	known := g.warehousesSet() || g.adopted || whose != "" || g.activeWarehouses > 0
	if n := g.part[1]; known && n > g.active() {
		return fmt.Errorf("--clients %d with %s: each client runs the terminals of warehouses of its own; use --clients %d or fewer",
			n, nWarehouses(int64(g.active())), g.active())
	}
	return nil
}

// ClientShare describes, for a dry run, which warehouses' terminals
// this client of a split run would run: its range when the count is the
// run's (--warehouses given), else that the load's count decides it when
// the client starts.
func (g *tpcc) ClientShare() string {
	if !g.split() {
		return ""
	}
	if !g.warehousesSet() && !g.adopted && g.activeWarehouses == 0 {
		return "its share of the warehouses init loaded (the split is checked against them when the client starts)"
	}
	first, last := g.home()
	return fmt.Sprintf("the terminals of %s of %d", warehouseSpan(first, last), g.warehouses)
}

// ReloadHint implements workload.ReloadHinter: a sweep over
// --warehouses is one over --active-warehouses on a load of the most.
func (g *tpcc) ReloadHint(flag, values string) string {
	if flag != "warehouses" {
		return ""
	}
	return fmt.Sprintf("sweep --active-warehouses %s over one load of the most warehouses (`stampede init tpcc --drop --warehouses N`, N the highest), as cockroach's --find-best does", values)
}

// WorkersAtStart reports whether the client's workers are counted only
// when it starts: a split given no --warehouses takes its share of the
// warehouses init loaded, 10 terminals each with waits, so a dry run
// (which reads no load) cannot count them.
func (g *tpcc) WorkersAtStart() bool {
	return g.wait && g.split() && !g.warehousesSet() && !g.adopted && g.activeWarehouses == 0
}

// split says whether the generator runs part of the warehouses' terminals
// (--clients or --warehouse-range).
func (g *tpcc) split() bool { return !g.hammerdb() && (g.part[1] > 0 || g.whRangeFlag != "") }

// clientHeader is the header line of a client's run of workers
// terminals: its warehouses (those with a terminal, when the workers are
// fewer: worker i's is the (i mod n)th), and who runs the checks.
func (g *tpcc) clientHeader(workers int) string {
	first, last := g.home()
	who := fmt.Sprintf("%s: --warehouse-range %s: the terminals of %s", g.label(), g.whRangeFlag, warehouseSpan(first, last))
	if g.part[1] > 0 {
		who = fmt.Sprintf("%s: client %d of %d: the terminals of %s", g.label(), g.part[0], g.part[1], warehouseSpan(first, last))
	}

	who += fmt.Sprintf(" of %d; remote order lines and payments go to all %d; tpmC, efficiency and audits are this client's (`stampede report --tag job=NAME` merges the clients)",
		g.warehouses, g.warehouses)
	if n := int(last - first + 1); workers > 0 && workers < n {
		with := fmt.Sprintf("warehouses %d-%d have", first, first+int64(workers)-1)
		if workers == 1 {
			with = fmt.Sprintf("warehouse %d has", first)
		}
		who += fmt.Sprintf("; with --concurrency %d, only %s a terminal: give --concurrency %d or more for every warehouse of the range", workers, with, n)
	}
	if g.part[1] > 0 && g.part[0] > 0 {
		who += "; client 0 runs the consistency checks after its run"
	}
	return who
}

// auditFields lists the audit counters by record name, for RunRecords
// and MergeClients.
func auditFields(t *auditTotals) map[string]*int64 {
	m := map[string]*int64{
		"rollbacks":            &t.rollbacks,
		"remote_lines":         &t.remoteLines,
		"remote_payments":      &t.remotePayments,
		"payments_by_name":     &t.paymentsByName,
		"order_status_by_name": &t.osByName,
		"skipping_deliveries":  &t.skippingDeliveries,
		"skipped_districts":    &t.skippedDistricts,
	}
	for i := range t.done {
		m["done."+txs[i].name] = &t.done[i]
	}
	for i := range t.lineCounts {
		m["lines."+strconv.Itoa(i)] = &t.lineCounts[i]
	}
	return m
}

// RunRecords implements workload.RunRecorder: sum(D_NEXT_O_ID) over every
// warehouse at the start and the end of the measurement interval (when
// both were read) and the audit counters of the interval.
func (g *tpcc) RunRecords() []workload.Record {
	if g.hammerdb() {
		return g.hammerRecords()
	}
	if g.workers == nil {
		return nil
	}
	var out []workload.Record
	m := g.run.meas
	if m.ok {
		out = append(out, workload.Record{Name: recNextStart, At: m.startAt, Value: float64(m.allStart)},
			workload.Record{Name: recNextEnd, At: m.endAt, Value: float64(m.allEnd)})
		if g.split() {
			out = append(out, workload.Record{Name: recHomeStart, At: m.startAt, Value: float64(m.nextStart)},
				workload.Record{Name: recHomeEnd, At: m.endAt, Value: float64(m.nextEnd)})
		}
	}
	t := sumAudits(g.workers)
	if m.started {
		t = t.sub(m.base)
	}
	fields := auditFields(&t)
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	slices.Sort(names)
	end := m.endAt
	if end.IsZero() {
		end = time.Now()
	}
	for _, name := range names {
		out = append(out, workload.Record{Name: auditRecPrefix + name, At: end, Value: float64(*fields[name])})
	}
	return out
}

// mergedClients is what MergeClients made of several clients' runs.
type mergedClients struct {
	// warehouses are the clients' home warehouses together; workers
	// their terminals.
	warehouses, workers int
	// nopm: the server's committed New-Orders between the reads at and
	// to (see MergeClients); nopmOK says there were such reads. With
	// perClient, newOrders is the growth over each client's own
	// warehouses, and nopm the sum of the clients' rates (each over its
	// own measurement interval); targets counts the databases. noNOPM
	// says why there is no NOPM, when there is none.
	newOrders int64
	at, to    time.Time
	nopmOK    bool
	perClient bool
	nopm      float64
	clients   int
	targets   int
	noNOPM    string
	// audits are the audit counters of the clients that recorded them,
	// added up; noAudits are the clients that did not (killed, say);
	// auditsMerged says MergeClients merged them (hammerMerge does not);
	// auditsPartial that a client recorded some counters only (another
	// stampede's), which leaves no audits.
	audits        auditTotals
	noAudits      []workload.ClientRun
	auditsMerged  bool
	auditsPartial bool
	// hammer holds --profile hammerdb's figures added up over the
	// clients (hammerMerge).
	hammer hammerMerged
	// common is the clients' common measurement interval, when report
	// said it (SetMergeInterval).
	common struct{ from, to time.Time }
}

// clientRange returns the home warehouses of a client's run from the
// flags run.json recorded: its --warehouse-range, its share of --clients,
// or every active warehouse.
func (g *tpcc) clientRange(flags map[string]string) (first, last int64, err error) {
	c := &tpcc{warehouses: g.warehouses, activeWarehouses: g.activeWarehouses, tenant: g.tenant, whRangeFlag: flags["warehouse-range"]}
	n, _ := strconv.Atoi(flags["clients"])
	i, _ := strconv.Atoi(flags["client-index"])
	if n > 0 && i >= 0 && i < n {
		c.part = [2]int{i, n}
	}
	if err := c.validateClients(); err != nil {
		return 0, 0, err
	}
	first, last = c.home()
	return first, last, nil
}

// MergeClients implements workload.ClientMerger. The runs must run the
// terminals of disjoint ranges of warehouses (an overlap is refused);
// efficiency is then over the warehouses of all of them, with all their
// terminals. NOPM is read from the server once: every client read
// sum(D_NEXT_O_ID) over every warehouse when its measurement interval
// started and ended, and the merge takes the latest of the start reads
// and the earliest of the end reads, the pair nearest the clients'
// common measurement interval; the New-Orders the server committed
// between them, per minute between them, is the benchmark's NOPM. The
// audits add up the clients' counters.
func (g *tpcc) MergeClients(runs []workload.ClientRun) error {
	if g.hammerdb() {
		return g.hammerMerge(runs)
	}
	m := &mergedClients{auditsMerged: len(runs) > 0}
	if g.weights == nil { // a rebuilt generator that validate has not seen
		w, err := parseMix(g.mix)
		if err != nil {
			return err
		}
		g.weights = w
	}
	type span struct {
		id          string
		first, last int64
	}
	var spans []span
	var startAt, endAt time.Time
	var start, end float64
	// Each client's own reads, over its home warehouses, when it recorded
	// them (homeOK): the growth over the reported clients' warehouses.
	homeOK := len(runs) > 0
	var homeGrowth int64
	var homeRate float64
	targets := map[string]bool{}
	// noReads are the clients without both reads over every warehouse.
	var noReads []workload.ClientRun
	for _, r := range runs {
		first, last, err := g.clientRange(r.Flags)
		if err != nil {
			return fmt.Errorf("run %s: %w", r.ID, err)
		}
		spans = append(spans, span{r.ID, first, last})
		targets[r.Server+" "+r.Database] = true
		m.warehouses += int(last - first + 1)
		if n, err := strconv.Atoi(r.Flags["concurrency"]); err == nil {
			m.workers += n
		}
		var t auditTotals
		fields := auditFields(&t)
		seen := 0
		var hStart, hEnd *workload.Record
		var read [2]bool
		for i, rec := range r.Records {
			switch {
			case rec.Name == recNextStart:
				read[0] = true
				if startAt.IsZero() || rec.At.After(startAt) {
					startAt, start = rec.At, rec.Value
				}
			case rec.Name == recNextEnd:
				read[1] = true
				if endAt.IsZero() || rec.At.Before(endAt) {
					endAt, end = rec.At, rec.Value
				}
			case rec.Name == recHomeStart:
				hStart = &r.Records[i]
			case rec.Name == recHomeEnd:
				hEnd = &r.Records[i]
			case strings.HasPrefix(rec.Name, auditRecPrefix):
				if p := fields[strings.TrimPrefix(rec.Name, auditRecPrefix)]; p != nil {
					*p = int64(rec.Value)
					seen++
				}
			}
		}
		if hStart != nil && hEnd != nil && hEnd.At.After(hStart.At) {
			n := int64(hEnd.Value - hStart.Value)
			homeGrowth += n
			homeRate += float64(n) / hEnd.At.Sub(hStart.At).Minutes()
		} else {
			homeOK = false
		}
		if !read[0] || !read[1] {
			noReads = append(noReads, r)
		}
		switch {
		case seen == 0:
			m.noAudits = append(m.noAudits, r)
		case seen < len(fields):
			m.auditsPartial = true
			fallthrough
		default:
			m.audits = addAudits(m.audits, t)
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return int(a.first - b.first) })
	for i := 1; i < len(spans); i++ {
		if a, b := spans[i-1], spans[i]; b.first <= a.last {
			return fmt.Errorf("runs %s (%s) and %s (%s) ran the terminals of the same warehouses: a benchmark's clients each run their own (--clients, or --warehouse-range ranges that do not overlap); report them apart",
				a.id, warehouseSpan(a.first, a.last), b.id, warehouseSpan(b.first, b.last))
		}
	}
	// NOPM counts the New-Orders of the reported clients' warehouses, on
	// each database they ran on. One database whose every active
	// warehouse a reported client ran: its sum over every warehouse, read
	// once, the latest start read and the earliest end read, the pair
	// nearest the clients' common interval. Otherwise (some clients
	// missing, or several databases, whose reads of different servers
	// never subtract): each client's growth over its own warehouses, per
	// minute of its own measurement interval, added up; runs that did not
	// record it (an older stampede's) have no NOPM, and the figures say
	// why. A client without its reads (killed before its end, when a
	// client records them) leaves no NOPM either: the other clients'
	// reads alone span another time than the counted figures' common
	// interval, most of it with fewer clients running.
	m.clients, m.targets = len(runs), len(targets)
	whole := len(targets) == 1 && m.warehouses == g.active()
	switch {
	case len(noReads) > 0 && (len(noReads) < len(runs) || !allCompleted(noReads)):
		m.noNOPM = "no NOPM: " + unrecorded(noReads, "sum(d_next_o_id) reads") + "; NOPM needs the start and end reads of every client"
	case whole && !startAt.IsZero() && !endAt.IsZero() && endAt.After(startAt):
		m.newOrders, m.at, m.to, m.nopmOK = int64(end-start), startAt, endAt, true
		m.nopm = float64(m.newOrders) / endAt.Sub(startAt).Minutes()
	case whole:
		// No reads (the null driver, or a read that failed): no NOPM,
		// as for one run.
	case homeOK:
		m.newOrders, m.nopm, m.nopmOK, m.perClient = homeGrowth, homeRate, true, true
	case len(targets) > 1:
		m.noNOPM = fmt.Sprintf("no NOPM: the clients ran on %d databases, and their runs recorded sum(d_next_o_id) over every warehouse of their database only (a stampede before the reads over each client's own warehouses), whose growths are not one benchmark's", len(targets))
	default:
		m.noNOPM = fmt.Sprintf("no NOPM: the runs reported ran the terminals of %d of the %s, and recorded sum(d_next_o_id) over every warehouse only (a stampede before the reads over each client's own warehouses), which counts the missing clients' New-Orders too: report every client of the benchmark",
			m.warehouses, nWarehouses(int64(g.active())))
	}
	g.merged = m
	g.figureWorkers = m.workers
	return nil
}

// clientName names a client's run in a line: "run ID (client 1 of 2)",
// or "run ID (--warehouse-range 3:4)".
func clientName(r workload.ClientRun) string {
	n, _ := strconv.Atoi(r.Flags["clients"])
	switch {
	case n > 0:
		return fmt.Sprintf("run %s (client %s of %d)", r.ID, r.Flags["client-index"], n)
	case r.Flags["warehouse-range"] != "":
		return fmt.Sprintf("run %s (--warehouse-range %s)", r.ID, r.Flags["warehouse-range"])
	}
	return "run " + r.ID
}

// allCompleted says whether every run of runs completed.
func allCompleted(runs []workload.ClientRun) bool {
	for _, r := range runs {
		if r.Status != "completed" {
			return false
		}
	}
	return true
}

// unrecorded says which of the clients' runs recorded none of what, and
// why, by how each ended: "run ID (client 1 of 2) recorded no
// sum(d_next_o_id) reads: killed (...)", joined by "; ".
func unrecorded(runs []workload.ClientRun, what string) string {
	lines := make([]string, len(runs))
	for i, r := range runs {
		var why string
		switch r.Status {
		case "killed":
			why = "killed (its process died before the end of its run, when a client records them)"
		case "running":
			why = "still running, or killed (its run log says running; a client records them at the end of its run)"
		case "failed", "interrupted":
			why = r.Status + " before the end of its measurement interval"
		default:
			why = "its reads of the server failed, or it ran without one (its log says which)"
		}
		lines[i] = fmt.Sprintf("%s recorded no %s: %s", clientName(r), what, why)
	}
	return strings.Join(lines, "; ")
}

// addAudits returns t plus u, counter by counter.
func addAudits(t, u auditTotals) auditTotals {
	neg := auditTotals{}
	return t.sub(neg.sub(u))
}
