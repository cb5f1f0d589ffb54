package proxy

import (
	"time"

	"github.com/Shopify/toxiproxy/v2/toxics"
)

// resetAfterType is the toxiproxy type of resetAfterReply.
const resetAfterType = "stampede_reset_after_reply"

func init() { toxics.Register(resetAfterType, new(resetAfterReply)) }

// resetAfterReply closes a connection Timeout milliseconds after the
// server's first reply passed through it, letting that reply and
// everything else through until then. toxiproxy's own reset_peer cannot
// do this: it takes the first block of data, drops it, waits and closes,
// so with any timeout the client never gets the server's first reply and
// no connection ever works.
//
// The close is a TCP RST when the connection's sockets have SO_LINGER 0,
// which toxiproxy sets on the new connections of a proxy that has a
// reset_peer toxic: Faults.toxics adds one that never fires (toxicity 0)
// beside this one.
type resetAfterReply struct {
	// Timeout is in milliseconds, as toxiproxy's reset_peer's.
	Timeout int64 `json:"timeout"`
}

// resetAfterState is one connection's deadline, kept across the
// interruptions toxiproxy makes when another fault changes.
type resetAfterState struct {
	deadline time.Time // zero until the first reply passed
}

// NewState implements toxics.StatefulToxic.
func (t *resetAfterReply) NewState() any { return new(resetAfterState) }

// Pipe implements toxics.Toxic.
func (t *resetAfterReply) Pipe(stub *toxics.ToxicStub) {
	st, _ := stub.State.(*resetAfterState)
	if st == nil {
		st = new(resetAfterState)
		stub.State = st
	}
	var fire <-chan time.Time
	var tm *time.Timer
	arm := func() {
		tm = time.NewTimer(time.Until(st.deadline))
		fire = tm.C
	}
	defer func() {
		if tm != nil {
			tm.Stop()
		}
	}()
	if !st.deadline.IsZero() {
		arm()
	}
	for {
		select {
		case <-stub.Interrupt:
			return
		case <-fire:
			stub.Close()
			return
		case c := <-stub.Input:
			if c == nil {
				stub.Close()
				return
			}
			stub.Output <- c
			if st.deadline.IsZero() {
				st.deadline = time.Now().Add(time.Duration(t.Timeout) * time.Millisecond)
				arm()
			}
		}
	}
}
