package fleet

import (
	"fmt"
	"testing"
)

func TestKeptText(t *testing.T) {
	twelve := make([]string, 12)
	for i := range twelve {
		twelve[i] = fmt.Sprintf("bank_%d", i+1)
	}
	for _, c := range []struct {
		kept []string
		want string
	}{
		{[]string{"bank_1"}, "role bank_1"},
		{[]string{"bank_1", "bank_2"}, "2 roles (bank_1, bank_2)"},
		{twelve, "12 roles (bank_1, bank_2, bank_3, bank_4, bank_5, bank_6, bank_7, bank_8, bank_9, bank_10, ...)"},
	} {
		if got := (RoleTotals{Kept: c.kept}).KeptText(); got != c.want {
			t.Errorf("KeptText(%v) = %q, want %q", c.kept, got, c.want)
		}
	}
}
