package sqlx

import "time"

// CurrentEndpoint returns the slot of the endpoint whose connection a
// dedicated Conn holds, or -1.
func CurrentEndpoint(c Conn) int {
	if w, ok := c.(*workerConn); ok && w.c != nil {
		return w.cur.Slot
	}
	if s, ok := c.(*sharedConn); ok {
		return s.last
	}
	return -1
}

// SetFailoverTiming changes the failover timing and returns a function
// that restores it.
func SetFailoverTiming(retry, probe, down time.Duration) (restore func()) {
	r, p, d := homeRetryInterval, homeProbeTimeout, downPeriod
	homeRetryInterval, homeProbeTimeout, downPeriod = retry, probe, down
	return func() { homeRetryInterval, homeProbeTimeout, downPeriod = r, p, d }
}
