// Package proxy runs TCP proxies that add faults to the traffic between a
// client and a database server: latency (fixed, with jitter), bandwidth
// limits, connection resets and stalls. It is how one machine stands in
// for a cluster spread over regions (three proxies with 1, 30 and 60 ms in
// front of three servers), and how tests inject faults into a running
// benchmark.
//
// The proxying and the faults are Shopify's toxiproxy (v2), embedded: each
// [Listener] is a toxiproxy Proxy, and its [Faults] become toxics on it.
// A [Proxy] holds the listeners of one process; its [Proxy.Handler] serves
// a small HTTP API (GET the listeners, PUT or PATCH a listener's faults) so
// that faults change while clients stay connected, and [Client] calls it.
//
// Latency is added to the server's replies (the downstream direction), so
// each round trip between client and server grows by it, as it would
// between two regions; bandwidth limits both directions.
package proxy
