// Package exposed says when a server that stampede starts (its Prometheus
// endpoint, the proxy's API) can be reached from other machines.
package exposed

import (
	"fmt"
	"net"
)

// Warning returns a one-line warning, without a trailing newline, for a
// listener at addr, which flag set to given, that other machines can
// reach: one bound to every interface (0.0.0.0, ::, or no host) or to an
// address other than a loopback one; "" for a loopback listener (or one
// that is not TCP). what says what anyone who can reach it can do ("read
// the run's metrics"). The advice names the flag that takes an address:
// flag, or --prometheus-listen for --prometheus-port.
func Warning(flag, given string, addr net.Addr, what string) string {
	addrFlag := flag
	if flag == "--prometheus-port" {
		addrFlag = "--prometheus-listen"
	}
	return WarningAdvising(flag, given, addrFlag, addr, what)
}

// WarningAdvising is Warning whose advice names addrFlag, the flag that
// takes the loopback address in the user's form (the cockroach form's
// --prometheus-port takes host:port; it has no --prometheus-listen).
func WarningAdvising(flag, given, addrFlag string, addr net.Addr, what string) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || tcp.IP.IsLoopback() {
		return ""
	}
	where := "on " + tcp.IP.String()
	if tcp.IP == nil || tcp.IP.IsUnspecified() {
		where = "on every interface"
	}
	return fmt.Sprintf("warning: %s %s listens %s, without authentication: anyone who can reach this machine can %s; give %s 127.0.0.1:%d to keep it to this machine",
		flag, given, where, what, addrFlag, tcp.Port)
}
