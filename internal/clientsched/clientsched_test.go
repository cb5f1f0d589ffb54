package clientsched

import "testing"

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Policy
		wantErr bool
	}{
		{"batch", Batch, false},
		{"normal", Normal, false},
		{"", "", true},
		{"fifo", "", true},
		{"BATCH", "", true},
	} {
		got, err := Parse(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("Parse(%q) = %q, %v; want %q, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}
