package lazyre_test

import (
	"sync"
	"testing"

	"github.com/stampede-bench/stampede/internal/lazyre"
)

func TestNew(t *testing.T) {
	tests := []struct {
		expr, in string
		match    bool
	}{
		{`(?i)^drop\s+table\b`, "DROP  TABLE t", true},
		{`(?i)^drop\s+table\b`, "drop tables", false},
		{`^[a-z_][a-z0-9_$]*$`, "pgbench_accounts", true},
	}
	for _, tc := range tests {
		re := lazyre.New(tc.expr)
		if got := re().MatchString(tc.in); got != tc.match {
			t.Errorf("%s on %q: match %v, want %v", tc.expr, tc.in, got, tc.match)
		}
		if re() != re() {
			t.Errorf("%s: compiled twice", tc.expr)
		}
	}
}

func TestNewConcurrent(t *testing.T) {
	re := lazyre.New(`a+b`)
	var wg sync.WaitGroup
	got := make([]any, 8)
	for i := range got {
		wg.Add(1)
		go func() { defer wg.Done(); got[i] = re() }()
	}
	wg.Wait()
	for i := range got {
		if got[i] != got[0] {
			t.Fatalf("goroutine %d got another compiled expression", i)
		}
	}
}

func TestNewPanicsAtFirstUse(t *testing.T) {
	re := lazyre.New(`(`) // no panic here
	defer func() {
		if recover() == nil {
			t.Fatal("an expression that does not compile did not panic at its first use")
		}
	}()
	re()
}
