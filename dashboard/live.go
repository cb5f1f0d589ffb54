package dashboard

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
)

// LiveInterval is the data of one "interval" event of /api/runs/{id}/live:
// one interval's figures per operation (results.IntervalPoints), as the
// run log holds them once the interval is committed.
type LiveInterval struct {
	// N is the interval's number, from 1; it is also the event's id, so
	// that a browser that reconnects (Last-Event-ID) gets the intervals
	// after it only.
	N     int                     `json:"n"`
	From  float64                 `json:"from_s"`
	To    float64                 `json:"to_s"`
	Ops   []results.IntervalPoint `json:"ops"`
	Extra map[string]float64      `json:"extra,omitempty"`
}

// LiveEnd is the data of the "end" event: the run's status once it has
// ended (completed, interrupted, failed, or killed when its process died).
type LiveEnd struct {
	Status    string `json:"status"`
	Error     string `json:"error,omitempty"`
	Intervals int    `json:"intervals"`
}

// storeRefresh is how often a live view of a run read from the results
// store reads what its writer shipped since (store.Store.Refresh).
const storeRefresh = time.Second

// heartbeat is how often a live stream sends a comment when nothing
// happens, so that proxies keep the connection open.
const heartbeat = 15 * time.Second

// handleLive streams a run's intervals as server-sent events: every
// interval already committed, then each one as the run log is appended
// (followed from where it was last read, see runlog.Follower), then an
// "end" event when the run has ended, and the stream closes. A damaged
// log sends a "damaged" event saying where it stops (the intervals before
// it were sent); a run directory deleted while it is followed sends
// "gone". Both close the stream.
func (s *Server) handleLive(w http.ResponseWriter, r *http.Request, run *runlog.Run) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		fail(w, errors.New("this connection cannot stream events"))
		return
	}
	skip := 0
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		skip, _ = strconv.Atoi(v)
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	send := func(event string, id int, v any) bool {
		data, err := json.Marshal(v)
		if err == nil {
			data, err = redactJSON(data)
		}
		if err != nil {
			return false
		}
		if id > 0 {
			fmt.Fprintf(w, "id: %d\n", id)
		}
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, data); err != nil {
			return false
		}
		flusher.Flush()
		return true
	}
	f := run.Follow()
	n := 0
	tick := time.NewTicker(s.cfg.Poll)
	defer tick.Stop()
	lastBeat := time.Now()
	// pump sends what the log holds that was not sent; false when the
	// stream is over (damaged, gone, or the browser left).
	pump := func() bool {
		ivs, err := f.Next()
		for i := range ivs {
			n++
			if n <= skip {
				continue
			}
			iv := &ivs[i]
			ev := LiveInterval{N: n, From: iv.Start.Sub(run.Info.Start).Seconds(), To: iv.End.Sub(run.Info.Start).Seconds(),
				Ops: results.IntervalPoints(run, iv), Extra: iv.Extra}
			if !send("interval", n, ev) {
				return false
			}
		}
		var trunc *runlog.TruncatedError
		switch {
		case errors.As(err, &trunc):
			send("damaged", 0, map[string]string{"error": fmt.Sprintf("run %s: %v", run.Info.ID, trunc)})
			return false
		case err != nil:
			send("gone", 0, map[string]string{"error": fmt.Sprintf("run %s can no longer be read (its directory %s was deleted or moved?): %v", run.Info.ID, run.Dir, err)})
			return false
		}
		return true
	}
	// A run read from the results store is a copy (fetch), brought up
	// to date with the store, where its writer ships it, every
	// storeRefresh.
	fromStore := s.cfg.Store != nil && s.cfg.FetchDir != "" && strings.HasPrefix(run.Dir, s.cfg.FetchDir+string(filepath.Separator))
	var refreshed time.Time
	for {
		if fromStore && time.Since(refreshed) >= storeRefresh {
			refreshed = time.Now()
			if err := s.cfg.Store.Refresh(r.Context(), run.Info.ID, run.Dir); err != nil {
				if r.Context().Err() != nil {
					return
				}
				send("gone", 0, map[string]string{"error": fmt.Sprintf("run %s can no longer be read from the results store %s: %v", run.Info.ID, s.cfg.StoreName, oneLine(err))})
				return
			}
		}
		if !pump() {
			return
		}
		info, err := runlog.Open(run.Dir)
		if err != nil {
			send("gone", 0, map[string]string{"error": fmt.Sprintf("run %s is gone: its directory %s was deleted or moved", run.Info.ID, run.Dir)})
			return
		}
		if info.Info.Status != runlog.StatusRunning {
			// Its last intervals were committed before its end was
			// recorded.
			if !pump() {
				return
			}
			end := LiveEnd{Status: info.Info.Status, Error: redact.Text(info.Info.Error), Intervals: n}
			if f.Pending() {
				end.Error = "the run stopped in the middle of an interval: its last histograms have no commit record"
			}
			send("end", 0, end)
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
		if time.Since(lastBeat) > heartbeat {
			if _, err := fmt.Fprint(w, ": still running\n\n"); err != nil {
				return
			}
			flusher.Flush()
			lastBeat = time.Now()
		}
	}
}
