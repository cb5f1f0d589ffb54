package ycsb

import (
	"strconv"
	"testing"
)

func TestKeyNames(t *testing.T) {
	for _, tc := range []struct {
		keynum  int64
		ordered bool
		pad     int
		want    string
	}{
		// Hashed key numbers as YCSB's fnvhash64 hashes them.
		{0, false, 1, "user6284781860667377211"},
		{1, false, 1, "user8517097267634966620"},
		{2, false, 1, "user1820151046732198393"},
		{3, false, 1, "user4052466453699787802"},
		{0, false, 22, "user0006284781860667377211"},
		{0, true, 1, "user0"},
		{1, true, 1, "user1"},
		{2, true, 0, "user2"},
		{3, true, 1, "user3"},
		{3, true, 5, "user00003"},
		{12345, true, 5, "user12345"},
		{123456, true, 5, "user123456"},
	} {
		got := string(appendKeyName(nil, tc.keynum, tc.ordered, tc.pad))
		if got != tc.want {
			t.Errorf("key %d ordered=%v pad=%d: %s, want %s", tc.keynum, tc.ordered, tc.pad, got, tc.want)
		}
		if len(got) > maxKeyNameLen(tc.pad) {
			t.Errorf("%s is longer than maxKeyNameLen(%d) = %d", got, tc.pad, maxKeyNameLen(tc.pad))
		}
	}
}

func TestFormatDecimal(t *testing.T) {
	for _, v := range []int64{0, 7, 9, 10, 42, 99, 100, 101, 999, 1000, 12345, -1, -10, -12345, 1<<63 - 1, -1 << 63} {
		var d [20]byte
		i := formatDecimal(&d, v)
		if got, want := string(d[i:]), strconv.FormatInt(v, 10); got != want {
			t.Errorf("formatDecimal(%d) = %s, want %s", v, got, want)
		}
	}
	if got := string(appendKeyName(nil, -42, true, 5)); got != "user00-42" {
		t.Errorf("negative key name %s, want user00-42 as YCSB pads it", got)
	}
}

func TestKeyNameAllocs(t *testing.T) {
	buf := make([]byte, 0, maxKeyNameLen(1))
	allocs := testing.AllocsPerRun(100, func() {
		buf = appendKeyName(buf[:0], 42, false, 1)
	})
	if allocs != 0 {
		t.Errorf("appendKeyName allocates %v times", allocs)
	}
}
