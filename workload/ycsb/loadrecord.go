package ycsb

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/stampede-bench/stampede/workload"
)

// fromLoad is the source of a property adopted from what init loaded.
const fromLoad = "the load"

// dataProperties are the properties the loaded rows depend on: the
// table's columns, its keys and its values. (The key range, insertstart
// and insertcount, is the setting "keys".)
var dataProperties = []string{
	"recordcount", "fieldcount", "fieldnameprefix", "fieldlength", "fieldlengthdistribution", "minfieldlength",
	"insertorder", "zeropadding",
}

// keysAll is the "keys" setting of a load or run of the whole table,
// [0, recordcount).
const keysAll = "all"

var (
	_ workload.DataSpecer = (*ycsb)(nil)
	_ workload.PartLoader = (*ycsb)(nil)
)

// DataKey implements the DataSpecer interface: "ycsb", or "ycsb.TABLE"
// for another table than usertable.
func (g *ycsb) DataKey() string {
	if c, err := g.config(); err == nil && c.tableName != defaultProperties["table"] {
		return "ycsb." + c.tableName
	}
	return "ycsb"
}

// DataSettings implements the DataSpecer interface: the properties of
// dataProperties, and "keys", the key numbers loaded: "all" of
// [0, recordcount), or this client's share, "insertstart+insertcount"
// (several, comma-separated, when clients loaded parts of the table and
// some are missing). A run may use a smaller recordcount than loaded
// (a subset of the keys, unless it splits the table), and a client's
// share of keys that were loaded; the other settings must be the
// loaded ones.
func (g *ycsb) DataSettings() []workload.DataSetting {
	c, err := g.config()
	if err != nil {
		return nil
	}
	var out []workload.DataSetting
	for _, name := range dataProperties {
		s := workload.DataSetting{
			Name:    name,
			Flag:    "-p " + name,
			Value:   c.property(name),
			Given:   c.given[name],
			Adopted: c.source[name] == fromLoad,
			Set:     func(v string) error { return g.adopt(map[string]string{name: v}) },
			Form:    func(v string) string { return "-p " + name + "=" + v },
		}
		if from := c.source[name]; s.Given && from != "-p" {
			s.From = from // --record-count, or a -P file's line
		}
		switch name {
		case "recordcount":
			given := c.recordCount
			s.Fits = func(loaded string) bool {
				n, err := strconv.ParseInt(loaded, 10, 64)
				return err == nil && !c.split() && given <= n
			}
		case "minfieldlength":
			s.Fits = func(string) bool {
				return c.fieldLengthDist != distUniform && c.fieldLengthDist != distZipfian
			}
		}
		out = append(out, s)
	}
	out = append(out, g.jsonSetting())
	if g.part[1] > 0 {
		// A client of several takes its share of the keys the load
		// recorded (PartitionClients): neither compared nor adopted.
		return out
	}
	out = append(out, workload.DataSetting{
		Name:  "keys",
		Flag:  "-p insertstart/insertcount",
		Value: c.keys(),
		Given: c.given["insertstart"] || c.given["insertcount"],
		Set:   g.adoptKeys,
		Form:  g.keysForm,
		Fits: func(loaded string) bool {
			ranges, err := parseKeyRanges(loaded, g.recordCount())
			return err == nil && covers(ranges, keyRange{c.insertStart, c.insertCount})
		},
	})
	return out
}

// jsonSetting is the name of --json's data setting: the table's layout.
const jsonSetting = "json"

// jsonSetting returns --json as a data setting: the layout decides the
// table's columns, so cleanup and run take it from the load as they take
// the properties (a bare cleanup of a load with --json took its field
// column for one a user added).
func (g *ycsb) jsonSetting() workload.DataSetting {
	form := func(v string) string { return "--json=" + v }
	return workload.DataSetting{
		Name:  jsonSetting,
		Flag:  "--json",
		Value: strconv.FormatBool(g.json),
		Given: g.flags.Changed("json"),
		Set: func(v string) error {
			on, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("malformed record of --json %q: reload with `stampede init ycsb --drop`", v)
			}
			g.json = on
			g.cfg = nil
			return g.validate()
		},
		Form: form,
	}
}

// property returns the resolved value of a property of dataProperties,
// as the record holds it.
func (c *config) property(name string) string {
	switch name {
	case "recordcount":
		return strconv.FormatInt(c.recordCount, 10)
	case "fieldcount":
		return strconv.Itoa(c.fieldCount)
	case "fieldnameprefix":
		return c.fieldPrefix
	case "fieldlength":
		return strconv.FormatInt(c.fieldLength, 10)
	case "fieldlengthdistribution":
		return c.fieldLengthDist
	case "minfieldlength":
		return strconv.FormatInt(c.minFieldLength, 10)
	case "insertorder":
		if c.insertOrdered {
			return "ordered"
		}
		return "hashed"
	case "zeropadding":
		return strconv.Itoa(c.zeroPadding)
	}
	panic("ycsb: no data property " + name)
}

// keys is the "keys" setting of c: "all", or "insertstart+insertcount".
func (c *config) keys() string {
	if !c.split() {
		return keysAll
	}
	return keyRange{c.insertStart, c.insertCount}.String()
}

// recordCount is the recordcount resolved now (after any adoption), or 0.
func (g *ycsb) recordCount() int64 {
	if c, err := g.config(); err == nil {
		return c.recordCount
	}
	return 0
}

// adopt sets properties to the values init loaded, above every other
// source, and resolves the configuration again.
func (g *ycsb) adopt(props map[string]string) error {
	if g.adopted == nil {
		g.adopted = map[string]string{}
	}
	for k, v := range props {
		g.adopted[k] = v
	}
	g.cfg = nil
	return g.validate()
}

// adoptKeys adopts the key range init loaded, when it is one range.
func (g *ycsb) adoptKeys(loaded string) error {
	if loaded == keysAll {
		return g.adopt(map[string]string{"insertstart": "0", "insertcount": strconv.FormatInt(g.recordCount(), 10)})
	}
	ranges, err := parseKeyRanges(loaded, g.recordCount())
	if err != nil {
		return err
	}
	if len(ranges) != 1 {
		return fmt.Errorf("init loaded the keys in parts and some are missing: give -p insertstart and -p insertcount of a part loaded")
	}
	return g.adopt(map[string]string{
		"insertstart": strconv.FormatInt(ranges[0].start, 10),
		"insertcount": strconv.FormatInt(ranges[0].count, 10),
	})
}

// keysForm is a "keys" setting as given on a command line.
func (g *ycsb) keysForm(v string) string {
	ranges, err := parseKeyRanges(v, g.recordCount())
	if err != nil {
		return "keys " + v
	}
	parts := make([]string, len(ranges))
	for i, r := range ranges {
		parts[i] = fmt.Sprintf("-p insertstart=%d -p insertcount=%d", r.start, r.count)
	}
	return strings.Join(parts, " or ")
}

// LoadsPart implements the PartLoader interface: a load of a share of the
// table (insertstart and insertcount that leave keys of recordcount out),
// as YCSB's clients split a load.
func (g *ycsb) LoadsPart() bool {
	c, err := g.config()
	return err == nil && c.split()
}

// MergeLoad implements the PartLoader interface: this client's keys join
// the parts loaded before when every other setting is theirs and no key
// was loaded already. The merged "keys" are "all" once the parts cover
// [0, recordcount).
func (g *ycsb) MergeLoad(loaded map[string]string) (map[string]string, error) {
	c, err := g.config()
	if err != nil {
		return nil, err
	}
	merged := map[string]string{}
	for _, name := range dataProperties {
		v := c.property(name)
		if l, ok := loaded[name]; ok && l != v {
			return nil, fmt.Errorf("-p %s=%s differs from the other parts' -p %s=%s: give every client the same properties but insertstart and insertcount",
				name, v, name, l)
		}
		merged[name] = v
	}
	json := strconv.FormatBool(c.json)
	if l, ok := loaded[jsonSetting]; ok && l != json {
		return nil, fmt.Errorf("--json=%s differs from the other parts' --json=%s: give every client the same flags but insertstart and insertcount", json, l)
	}
	merged[jsonSetting] = json
	ranges, err := parseKeyRanges(loaded["keys"], c.recordCount)
	if err != nil {
		return nil, err
	}
	mine := keyRange{c.insertStart, c.insertCount}
	for _, r := range ranges {
		if mine.start < r.start+r.count && r.start < mine.start+mine.count {
			return nil, fmt.Errorf("keys -p insertstart=%d -p insertcount=%d overlap the part loaded with -p insertstart=%d -p insertcount=%d: give each client keys of its own",
				mine.start, mine.count, r.start, r.count)
		}
	}
	merged["keys"] = formatKeyRanges(mergeKeyRanges(append(ranges, mine)), c.recordCount)
	return merged, nil
}

// keyRange is the key numbers [start, start+count).
type keyRange struct{ start, count int64 }

func (r keyRange) String() string { return fmt.Sprintf("%d+%d", r.start, r.count) }

// parseKeyRanges parses a "keys" setting ("all" is [0, recordCount)).
func parseKeyRanges(s string, recordCount int64) ([]keyRange, error) {
	if s == keysAll || s == "" {
		return []keyRange{{0, recordCount}}, nil
	}
	var out []keyRange
	for _, part := range strings.Split(s, ",") {
		a, b, ok := strings.Cut(part, "+")
		start, err1 := strconv.ParseInt(a, 10, 64)
		count, err2 := strconv.ParseInt(b, 10, 64)
		if !ok || err1 != nil || err2 != nil || start < 0 || count < 1 {
			return nil, fmt.Errorf("malformed record of the keys loaded %q: reload with `stampede init ycsb --drop`", s)
		}
		out = append(out, keyRange{start, count})
	}
	return out, nil
}

// mergeKeyRanges sorts ranges and joins those that touch.
func mergeKeyRanges(ranges []keyRange) []keyRange {
	slices.SortFunc(ranges, func(a, b keyRange) int { return cmp.Compare(a.start, b.start) })
	var out []keyRange
	for _, r := range ranges {
		if n := len(out); n > 0 && out[n-1].start+out[n-1].count >= r.start {
			end := max(out[n-1].start+out[n-1].count, r.start+r.count)
			out[n-1].count = end - out[n-1].start
			continue
		}
		out = append(out, r)
	}
	return out
}

// formatKeyRanges is the "keys" setting of merged ranges: "all" when
// they are [0, recordCount).
func formatKeyRanges(ranges []keyRange, recordCount int64) string {
	if len(ranges) == 1 && ranges[0] == (keyRange{0, recordCount}) {
		return keysAll
	}
	parts := make([]string, len(ranges))
	for i, r := range ranges {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// covers reports whether the ranges hold every key of r.
func covers(ranges []keyRange, r keyRange) bool {
	for _, l := range mergeKeyRanges(slices.Clone(ranges)) {
		if l.start <= r.start && r.start+r.count <= l.start+l.count {
			return true
		}
	}
	return false
}

var _ workload.ShareLoader = (*ycsb)(nil)

// LoadShare implements the ShareLoader interface: share index of count is
// the keys run --clients gives that client (PartitionClients), as
// insertstart and insertcount.
func (g *ycsb) LoadShare(index, count int) error {
	if rc := g.recordCount(); rc > 0 && int64(count) > rc {
		return fmt.Errorf("--clients %d with recordcount %d: each client loads keys of its own; use --clients %d or fewer", count, rc, rc)
	}
	return g.PartitionClients(index, count)
}

// ShareOf implements the ShareLoader interface: "keys A-B", the key
// numbers of share index of count.
func (g *ycsb) ShareOf(index, count int) string {
	rc := g.recordCount()
	lo, hi := rc*int64(index)/int64(count), rc*int64(index+1)/int64(count)
	return fmt.Sprintf("keys %d-%d", lo, hi-1)
}
