// Package haproxy writes HAProxy configurations that put a load balancer in
// front of several database nodes, as `cockroach gen haproxy` does: one TCP
// listener, new connections spread over the nodes in turn (round robin),
// health checks suited to the server (PostgreSQL's startup handshake,
// CockroachDB's HTTP readiness endpoint, or a plain TCP connect), and
// timeouts long enough for a benchmark whose statements (an index build
// during a load, a consistency check) may keep a connection silent for
// minutes.
//
// [Servers] turns connection URLs into the nodes to balance; [Write]
// renders a [Config]. The package knows nothing of running HAProxy.
package haproxy
