package ycsb

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/stampede-bench/stampede/internal/lazyre"
	"github.com/stampede-bench/stampede/internal/membudget"
	"github.com/stampede-bench/stampede/workload"

	"github.com/spf13/pflag"
)

// The operation types, in the order of QueryLoad.Ops.
const (
	opRead = iota
	opUpdate
	opInsert
	opScan
	opReadModifyWrite
	// opDelete is cockroach's delete (--workload=CUSTOM --delete-freq),
	// not one of YCSB's core operations: see delete.go.
	opDelete
	numOps
)

// opNames are the operation names, indexed by op.
var opNames = [numOps]string{"read", "update", "insert", "scan", "read-modify-write", "delete"}

// opProperties are the proportion properties, indexed by op.
var opProperties = [numOps]string{
	"readproportion", "updateproportion", "insertproportion", "scanproportion", "readmodifywriteproportion", "deleteproportion",
}

// defaultRecordCount is cockroach workload's default; YCSB's workload files
// say 1000.
const defaultRecordCount = 10000

// defaultProperties are CoreWorkload's defaults (and recordcount's).
// insertcount (recordcount - insertstart) and operationcount (unset) have
// no fixed default.
var defaultProperties = map[string]string{
	"table":                     "usertable",
	"recordcount":               strconv.Itoa(defaultRecordCount),
	"fieldcount":                "10",
	"fieldnameprefix":           "field",
	"fieldlength":               "100",
	"minfieldlength":            "1",
	"fieldlengthdistribution":   "constant",
	"fieldlengthhistogram":      "hist.txt",
	"readallfields":             "true",
	"writeallfields":            "false",
	"readproportion":            "0.95",
	"updateproportion":          "0.05",
	"insertproportion":          "0",
	"scanproportion":            "0",
	"readmodifywriteproportion": "0",
	"deleteproportion":          "0",
	"requestdistribution":       "uniform",
	"zipfianconstant":           "0.99",
	"hotspotdatafraction":       "0.2",
	"hotspotopnfraction":        "0.8",
	"exponential.percentile":    "95",
	"exponential.frac":          "0.8571428571",
	"insertorder":               "hashed",
	"insertstart":               "0",
	"minscanlength":             "1",
	"maxscanlength":             "1000",
	"scanlengthdistribution":    "uniform",
	"zeropadding":               "1",
	"measurement.interval":      "op",
	"reportlatencyforeacherror": "false",
	"hdrhistogram.percentiles":  "95,99",
	propBatchSize:               "-1",
	propBatchUpdates:            "false",
	propExporter:                ExporterText,
}

// propertyKinds are the types of the properties that are not strings,
// so that every -p value is checked as it is given, even one a later
// source overrides.
var propertyKinds = map[string]flagKind{
	"recordcount": kindInt, "insertstart": kindInt, "insertcount": kindInt, "operationcount": kindInt,
	"fieldcount": kindInt, "fieldlength": kindInt, "minfieldlength": kindInt, "zeropadding": kindInt,
	"minscanlength": kindInt, "maxscanlength": kindInt,
	"readproportion": kindFloat, "updateproportion": kindFloat, "insertproportion": kindFloat,
	"scanproportion": kindFloat, "readmodifywriteproportion": kindFloat, "deleteproportion": kindFloat, "zipfianconstant": kindFloat,
	"hotspotdatafraction": kindFloat, "hotspotopnfraction": kindFloat,
	"exponential.percentile": kindFloat, "exponential.frac": kindFloat,
	"readallfields": kindBool, "writeallfields": kindBool, "reportlatencyforeacherror": kindBool,
	propBatchSize: kindInt, propBatchUpdates: kindBool,
}

// propertyChoices are the values each choice property takes.
var propertyChoices = map[string][]string{
	"fieldlengthdistribution": {distConstant, distUniform, distZipfian, distHistogram},
	"requestdistribution":     {distUniform, distZipfian, distLatest, distHotspot, distExponential, distSequential},
	"insertorder":             {"hashed", "ordered"},
	"scanlengthdistribution":  {distUniform, distZipfian},
	"measurement.interval":    {"op", "intended", "both"},
}

// knownWithoutDefault are the properties read that have no fixed default.
var knownWithoutDefault = map[string]bool{"insertcount": true, "operationcount": true, propExportFile: true, propLabel: true}

// coreWorkloads are the properties of YCSB's workloads/workloada..f that
// define the workload (the files' recordcount and operationcount of 1000
// are not applied).
var coreWorkloads = map[string]map[string]string{
	"a": mix("0.5", "0.5", "0", "0", "0", "zipfian"),
	"b": mix("0.95", "0.05", "0", "0", "0", "zipfian"),
	"c": mix("1", "0", "0", "0", "0", "zipfian"),
	"d": mix("0.95", "0", "0.05", "0", "0", "latest"),
	"e": withProps(mix("0", "0", "0.05", "0.95", "0", "zipfian"),
		"maxscanlength", "100", "scanlengthdistribution", "uniform"),
	"f": mix("0.5", "0", "0", "0", "0.5", "zipfian"),
}

func mix(read, update, insert, scan, rmw, dist string) map[string]string {
	return map[string]string{
		"readallfields":             "true",
		"readproportion":            read,
		"updateproportion":          update,
		"insertproportion":          insert,
		"scanproportion":            scan,
		"readmodifywriteproportion": rmw,
		"requestdistribution":       dist,
	}
}

func withProps(m map[string]string, kv ...string) map[string]string {
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

type flagKind int

const (
	kindInt flagKind = iota
	kindFloat
	kindString
	kindBool
)

// propertyFlag is a kebab-case flag that sets a property when given.
type propertyFlag struct {
	name, property, usage string
	kind                  flagKind
	// def is the flag's default as shown in help (parsed by kind); "" means
	// none, for properties whose default depends on --workload.
	def         string
	runtimeOnly bool
	hidden      bool
	// convert maps the flag's value to the property's; nil keeps it.
	convert func(string) string
}

// propertyFlags are the kebab-case flags, applied in this order (so a flag
// overrides its hidden `cockroach workload` alias).
var propertyFlags = []propertyFlag{
	// Aliases of `cockroach workload ycsb`.
	{name: "read-freq", property: "readproportion", kind: kindFloat, runtimeOnly: true, hidden: true},
	{name: "update-freq", property: "updateproportion", kind: kindFloat, runtimeOnly: true, hidden: true},
	{name: "insert-freq", property: "insertproportion", kind: kindFloat, runtimeOnly: true, hidden: true},
	{name: "scan-freq", property: "scanproportion", kind: kindFloat, runtimeOnly: true, hidden: true},
	{name: "read-modify-write-freq", property: "readmodifywriteproportion", kind: kindFloat, runtimeOnly: true, hidden: true},
	{name: "delete-freq", property: "deleteproportion", kind: kindFloat, runtimeOnly: true, hidden: true},
	{name: "insert-hash", property: "insertorder", kind: kindBool, def: "true", hidden: true,
		usage: "hash key numbers into key names (insertorder=hashed)",
		convert: func(v string) string {
			if v == "false" {
				return "ordered"
			}
			return "hashed"
		}},

	{name: "record-count", property: "recordcount", kind: kindInt, def: strconv.Itoa(defaultRecordCount),
		usage: "number of rows in the table (recordcount; YCSB's workload files say 1000)"},
	{name: "insert-start", property: "insertstart", kind: kindInt, def: "0",
		usage: "first key number this client loads (insertstart)"},
	{name: "insert-count", property: "insertcount", kind: kindInt,
		usage: "number of keys this client loads and chooses from (insertcount; default record-count - insert-start)"},
	{name: "field-count", property: "fieldcount", kind: kindInt, def: "10",
		usage: "number of value columns (fieldcount)"},
	{name: "field-length", property: "fieldlength", kind: kindInt, def: "100",
		usage: "length of each value, or its maximum (fieldlength)"},
	{name: "min-field-length", property: "minfieldlength", kind: kindInt, def: "1",
		usage: "minimum value length of the uniform and zipfian length distributions (minfieldlength)"},
	{name: "field-length-distribution", property: "fieldlengthdistribution", kind: kindString, def: "constant",
		usage: "value length distribution: constant, uniform, zipfian or histogram (of the file fieldlengthhistogram) (fieldlengthdistribution)"},
	{name: "insert-order", property: "insertorder", kind: kindString, def: "hashed",
		usage: "key names from hashed or ordered key numbers (insertorder)"},
	{name: "zero-padding", property: "zeropadding", kind: kindInt, def: "1",
		usage: "zero-pad key numbers in key names to this many digits (zeropadding)"},
	{name: "read-all-fields", property: "readallfields", kind: kindBool, def: "true", runtimeOnly: true,
		usage: "reads fetch every field, else one random field (readallfields)"},
	{name: "write-all-fields", property: "writeallfields", kind: kindBool, def: "false", runtimeOnly: true,
		usage: "updates write every field, else one random field (writeallfields)"},
	{name: "read-proportion", property: "readproportion", kind: kindFloat, runtimeOnly: true,
		usage: "proportion of reads (readproportion; default per --workload)"},
	{name: "update-proportion", property: "updateproportion", kind: kindFloat, runtimeOnly: true,
		usage: "proportion of updates (updateproportion; default per --workload)"},
	{name: "insert-proportion", property: "insertproportion", kind: kindFloat, runtimeOnly: true,
		usage: "proportion of inserts (insertproportion; default per --workload)"},
	{name: "scan-proportion", property: "scanproportion", kind: kindFloat, runtimeOnly: true,
		usage: "proportion of scans (scanproportion; default per --workload)"},
	{name: "read-modify-write-proportion", property: "readmodifywriteproportion", kind: kindFloat, runtimeOnly: true,
		usage: "proportion of read-modify-writes (readmodifywriteproportion; default per --workload)"},
	{name: "delete-proportion", property: "deleteproportion", kind: kindFloat, runtimeOnly: true,
		usage: "proportion of deletes (deleteproportion: cockroach's, not a YCSB core operation; default 0). stampede check ycsb then finds the deleted keys missing"},
	{name: "request-distribution", property: "requestdistribution", kind: kindString, runtimeOnly: true,
		usage: "key distribution: uniform, zipfian, latest, hotspot, exponential or sequential (requestdistribution; default per --workload)"},
	{name: "zipfian-constant", property: "zipfianconstant", kind: kindFloat, def: "0.99",
		usage: "skew of every zipfian draw: the zipfian and latest request distributions, zipfian scan and value lengths (zipfianconstant; not a YCSB property)"},
	{name: "hotspot-data-fraction", property: "hotspotdatafraction", kind: kindFloat, def: "0.2", runtimeOnly: true,
		usage: "fraction of keys in the hot set (hotspotdatafraction)"},
	{name: "hotspot-opn-fraction", property: "hotspotopnfraction", kind: kindFloat, def: "0.8", runtimeOnly: true,
		usage: "fraction of operations on the hot set (hotspotopnfraction)"},
	{name: "min-scan-length", property: "minscanlength", kind: kindInt, def: "1", runtimeOnly: true,
		usage: "minimum rows per scan (minscanlength)"},
	{name: "max-scan-length", property: "maxscanlength", kind: kindInt, def: "1000", runtimeOnly: true,
		usage: "maximum rows per scan (maxscanlength; 100 for --workload e)"},
	{name: "scan-length-distribution", property: "scanlengthdistribution", kind: kindString, def: "uniform", runtimeOnly: true,
		usage: "scan length distribution: uniform or zipfian (scanlengthdistribution)"},
	{name: "measurement-interval", property: "measurement.interval", kind: kindString, def: "op", runtimeOnly: true,
		usage: "latency measured from the op's start (op), its intended start (intended) or both (measurement.interval)"},
}

// define adds the flag to fs. Its value is read back through
// fs.Lookup(name).Value.String() when it was given.
func (pf propertyFlag) define(fs *pflag.FlagSet) {
	switch pf.kind {
	case kindInt:
		def, _ := strconv.ParseInt(pf.def, 10, 64)
		fs.Int64(pf.name, def, pf.usage)
	case kindFloat:
		def, _ := strconv.ParseFloat(pf.def, 64)
		fs.Float64(pf.name, def, pf.usage)
	case kindBool:
		fs.Bool(pf.name, pf.def == "true", pf.usage)
	default:
		fs.String(pf.name, pf.def, pf.usage)
	}
	if pf.def == "" {
		workload.SetDependentDefault(fs, pf.name)
	}
}

// Distribution names.
const (
	distConstant    = "constant"
	distUniform     = "uniform"
	distZipfian     = "zipfian"
	distLatest      = "latest"
	distHotspot     = "hotspot"
	distExponential = "exponential"
	distSequential  = "sequential"
	distHistogram   = "histogram"
)

// config is the resolved, validated configuration.
type config struct {
	tableName           string
	recordCount         int64
	insertStart         int64
	insertCount         int64
	operationCount      int64 // 0 when not given
	fieldCount          int
	fieldPrefix         string
	fieldLength         int64
	minFieldLength      int64
	fieldLengthDist     string
	readAllFields       bool
	writeAllFields      bool
	proportions         [numOps]float64
	requestDist         string
	zipfianConstant     float64
	hotspotData         float64
	hotspotOpn          float64
	expPercentile       float64
	expFrac             float64
	insertOrdered       bool
	zeroPadding         int
	minScanLength       int64
	maxScanLength       int64
	scanLengthDist      string
	measurementInterval string
	// measurementSet is true when measurement.interval was given (not
	// YCSB's default).
	measurementSet bool
	// operationCountSet is true when operationcount was given (0 is
	// then YCSB's "no limit").
	operationCountSet bool
	// reportEachError is YCSB's reportlatencyforeacherror: failed
	// operations' latencies under OP-STATUS rather than OP-FAILED.
	reportEachError bool
	// percentiles are hdrhistogram.percentiles, for YCSB's report.
	percentiles []float64
	// fieldHistogram is the value length histogram of
	// fieldlengthdistribution=histogram.
	fieldHistogram *lengthHistogram
	// warnings are parseConfig's non-fatal findings.
	warnings []string
	dataSeed uint64
	// tenant is the tenant whose rows the workload works on (0: none);
	// tenantArg is it as bound to statements and rows.
	tenant    int
	tenantArg any
	batching
	// given says which properties the command line gave (by -P, -p or
	// a flag), as opposed to defaults and values adopted from the load.
	given map[string]bool
	// source says where each given property came from (prop.from).
	source map[string]string
	// json is the JSONB layout of cockroach's --json (json.go).
	json bool
	// families puts each column in a column family (families.go).
	families bool
}

// prop is a property's value and where it came from, for messages.
type prop struct {
	value, from string
}

// fromClients starts the source of the insertstart and insertcount a
// client of several gets (PartitionClients).
const fromClients = "--client-index"

// resolve merges the property sources in precedence order and parses the
// result.
func (g *ycsb) resolve() (*config, []string, error) {
	props := make(map[string]prop, len(defaultProperties)+4)
	for k, v := range defaultProperties {
		props[k] = prop{v, "default"}
	}
	var warnings []string
	set := func(key, value, from string) error {
		if _, ok := defaultProperties[key]; !ok && !knownWithoutDefault[key] {
			if isCommandLineProperty(key) {
				return nil // the command line's (cmdline/ycsb)
			}
			if w := unknownPropertyWarning(key, value, from); w != "" {
				warnings = append(warnings, w)
			}
			return nil
		}
		if from == "-p" {
			// Checked now: a flag may override it, but a malformed
			// value is a mistake all the same.
			if err := checkValue(key, prop{value, from}); err != nil {
				return err
			}
		} else if old := props[key]; old.from == "-p" && old.value != value {
			warnings = append(warnings, fmt.Sprintf("%s overrides -p %s=%s: using %s=%s", from, key, old.value, key, value))
		}
		props[key] = prop{value, from}
		return nil
	}

	letter := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(g.workloadLetter)), "workload")
	core, ok := coreWorkloads[letter]
	if !ok {
		return nil, nil, fmt.Errorf("unknown --workload %q: use a, b, c, d, e or f", g.workloadLetter)
	}
	if len(g.propFiles) == 0 || g.flags.Changed("workload") {
		keys := make([]string, 0, len(core))
		for k := range core {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			_ = set(k, core[k], "--workload "+letter)
		}
	}
	for _, file := range g.propFiles {
		entries, builtin, err := readPropertyFile(file)
		if err != nil {
			return nil, nil, err
		}
		if builtin {
			var kv []string
			for _, e := range entries {
				kv = append(kv, e.key+"="+e.value)
			}
			warnings = append(warnings, fmt.Sprintf("-P %s: no such file: using YCSB's %s as YCSB distributes it (%s)",
				file, filepath.Base(file), strings.Join(kv, " ")))
		}
		for _, e := range entries {
			from := fmt.Sprintf("%s:%d", file, e.line)
			v := e.value
			_, known := defaultProperties[e.key]
			if t := strings.TrimRight(v, " \t\f"); t != v && (known || knownWithoutDefault[e.key]) {
				// java.util.Properties keeps it; YCSB then fails to
				// parse a number with it, or compares a name unequal.
				warnings = append(warnings, fmt.Sprintf("%s: the value of %s ends in white space, which YCSB would keep: using %q", from, e.key, t))
				v = t
			}
			_ = set(e.key, v, from)
		}
	}
	for _, kv := range g.props {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, nil, fmt.Errorf("malformed -p %q: expected key=value", kv)
		}
		if err := set(k, strings.TrimSpace(v), "-p"); err != nil {
			return nil, nil, err
		}
	}
	for _, pf := range propertyFlags {
		f := g.flags.Lookup(pf.name)
		if f == nil || !f.Changed {
			continue
		}
		v := f.Value.String()
		if pf.convert != nil {
			v = pf.convert(v)
		}
		_ = set(pf.property, v, "--"+pf.name)
	}
	for k, v := range g.adopted {
		props[k] = prop{v, fromLoad}
	}
	if n := int64(g.part[1]); n > 0 {
		for _, k := range []string{"insertstart", "insertcount"} {
			if v, ok := props[k]; ok && v.from != "default" && v.from != fromLoad {
				return nil, nil, fmt.Errorf("--clients gives each client its own keys, as %s does: drop %s (from %s)", k, k, v.from)
			}
		}
		rc, err := strconv.ParseInt(props["recordcount"].value, 10, 64)
		if err == nil {
			i := int64(g.part[0])
			lo, hi := rc*i/n, rc*(i+1)/n
			from := fmt.Sprintf("%s %d of --clients %d", fromClients, i, n)
			props["insertstart"], props["insertcount"] = prop{strconv.FormatInt(lo, 10), from}, prop{strconv.FormatInt(hi-lo, 10), from}
		}
	}

	cfg, err := parseConfig(props)
	if err == nil {
		cfg.tenant = g.tenant // parseBatching counts its column
		err = cfg.parseBatching(props)
	}
	if err != nil {
		return nil, nil, err
	}
	cfg.given, cfg.source = map[string]bool{}, map[string]string{}
	for k, v := range props {
		// A client's share of the keys (--clients) is not a property the
		// user gave: the load's record is compared with, and adopted into,
		// recordcount, from which the share is computed.
		cfg.given[k] = v.from != "default" && v.from != fromLoad && !strings.HasPrefix(v.from, fromClients)
		cfg.source[k] = v.from
	}
	warnings = append(warnings, cfg.warnings...)
	cfg.dataSeed = g.dataSeed
	cfg.setTenant(g.tenant)
	cfg.measurementSet = props["measurement.interval"].from != "default"
	return cfg, warnings, nil
}

// checkValue checks that v parses as key's type, or is one of its
// choices.
func checkValue(key string, v prop) error {
	p := &propParser{props: map[string]prop{key: v}}
	kind, ok := propertyKinds[key]
	if !ok {
		kind = kindString
	}
	switch kind {
	case kindInt:
		p.int(key)
	case kindFloat:
		p.float(key)
	case kindBool:
		p.bool(key)
	default:
		if choices, ok := propertyChoices[key]; ok {
			p.choice(key, choices...)
		}
	}
	return p.err
}

// unknownPropertyWarning is the warning for a property stampede does not
// read, or "" for one that needs none.
func unknownPropertyWarning(key, value, from string) string {
	if key == "workload" && strings.HasSuffix(value, ".CoreWorkload") {
		return "" // every YCSB workload file names its class
	}
	if key == "measurementtype" && value == "hdrhistogram" {
		return "" // YCSB's default, and how stampede measures
	}
	if lower := strings.ToLower(key); strings.Contains(lower, "pass") || strings.Contains(lower, "secret") {
		value = "xxxxx" // a password under a misspelt name (db.passwrd) is printed nowhere either
	}
	msg := fmt.Sprintf("ignoring property %s=%s (from %s)", key, value, from)
	switch {
	case key == "measurementtype":
		msg += ": stampede measures with HDR histograms, YCSB's measurementtype=hdrhistogram, and reports as it does"
	case key == "workload":
		msg += ": only CoreWorkload is supported"
	case strings.HasPrefix(key, "db.") || strings.HasPrefix(key, "jdbc."):
		msg += ": connection settings come from the URL"
	default:
		msg += ": not a property stampede's ycsb reads"
	}
	return msg
}

// propParser parses typed properties, keeping the first error.
type propParser struct {
	props map[string]prop
	err   error
}

func (p *propParser) fail(key string, v prop, format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf("invalid %s %q (from %s): %s", key, v.value, v.from, fmt.Sprintf(format, args...))
	}
}

func (p *propParser) int(key string) int64 {
	v := p.props[key]
	n, err := strconv.ParseInt(v.value, 10, 64)
	if err != nil {
		p.fail(key, v, "not an integer")
	}
	return n
}

func (p *propParser) float(key string) float64 {
	v := p.props[key]
	f, err := strconv.ParseFloat(v.value, 64)
	if err != nil {
		p.fail(key, v, "not a number")
	}
	return f
}

func (p *propParser) bool(key string) bool {
	v := p.props[key]
	switch strings.ToLower(v.value) {
	case "true":
		return true
	case "false":
		return false
	}
	p.fail(key, v, "not true or false")
	return false
}

// choice returns the lower-cased value of key, which must be one of
// choices.
func (p *propParser) choice(key string, choices ...string) string {
	v := p.props[key]
	s := strings.ToLower(v.value)
	for _, c := range choices {
		if s == c {
			return s
		}
	}
	if p.err == nil {
		last := len(choices) - 1
		list := strings.Join(choices[:last], ", ")
		if last > 0 {
			list += " or " + choices[last]
		}
		p.err = fmt.Errorf("unknown %s %q (from %s): use %s", key, v.value, v.from, list)
	}
	return ""
}

// atLeast checks that key's value n is at least min.
func (p *propParser) atLeast(key string, n, min int64) {
	if p.err == nil && n < min {
		p.err = fmt.Errorf("%s must be at least %d, not %d (from %s)", key, min, n, p.props[key].from)
	}
}

// fraction checks that key's value f is in [0, 1].
func (p *propParser) fraction(key string, f float64) {
	if p.err == nil && (f < 0 || f > 1) {
		p.err = fmt.Errorf("%s must be between 0 and 1, not %s (from %s)", key, formatFloat(f), p.props[key].from)
	}
}

var identRE = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$`)

// maxKeyLength is the length of ycsb_key's VARCHAR.
const maxKeyLength = 255

// parseConfig parses and validates the merged properties.
func parseConfig(props map[string]prop) (*config, error) {
	p := &propParser{props: props}
	c := &config{
		tableName:           props["table"].value,
		fieldPrefix:         props["fieldnameprefix"].value,
		recordCount:         p.int("recordcount"),
		insertStart:         p.int("insertstart"),
		fieldLength:         p.int("fieldlength"),
		minFieldLength:      p.int("minfieldlength"),
		fieldLengthDist:     p.choice("fieldlengthdistribution", propertyChoices["fieldlengthdistribution"]...),
		readAllFields:       p.bool("readallfields"),
		writeAllFields:      p.bool("writeallfields"),
		requestDist:         p.choice("requestdistribution", propertyChoices["requestdistribution"]...),
		zipfianConstant:     p.float("zipfianconstant"),
		hotspotData:         p.float("hotspotdatafraction"),
		hotspotOpn:          p.float("hotspotopnfraction"),
		expPercentile:       p.float("exponential.percentile"),
		expFrac:             p.float("exponential.frac"),
		insertOrdered:       p.choice("insertorder", propertyChoices["insertorder"]...) == "ordered",
		minScanLength:       p.int("minscanlength"),
		maxScanLength:       p.int("maxscanlength"),
		scanLengthDist:      p.choice("scanlengthdistribution", propertyChoices["scanlengthdistribution"]...),
		measurementInterval: p.choice("measurement.interval", propertyChoices["measurement.interval"]...),
		reportEachError:     p.bool("reportlatencyforeacherror"),
	}
	fieldCount := p.int("fieldcount")
	zeroPadding := p.int("zeropadding")
	for i, key := range opProperties {
		c.proportions[i] = p.float(key)
	}
	if _, ok := props["insertcount"]; ok {
		c.insertCount = p.int("insertcount")
	} else {
		c.insertCount = c.recordCount - c.insertStart
	}
	if _, ok := props["operationcount"]; ok {
		c.operationCount = p.int("operationcount")
		c.operationCountSet = true
		p.atLeast("operationcount", c.operationCount, 0)
	}
	if p.err != nil {
		return nil, p.err
	}

	if !identRE().MatchString(c.tableName) {
		return nil, fmt.Errorf("invalid table %q (from %s): use letters, digits and underscores", c.tableName, props["table"].from)
	}
	if !identRE().MatchString(c.fieldPrefix) {
		return nil, fmt.Errorf("invalid fieldnameprefix %q (from %s): use letters, digits and underscores", c.fieldPrefix, props["fieldnameprefix"].from)
	}
	p.atLeast("recordcount", c.recordCount, 1)
	p.atLeast("fieldcount", fieldCount, 1)
	p.atLeast("insertstart", c.insertStart, 0)
	p.atLeast("fieldlength", c.fieldLength, 1)
	p.atLeast("minscanlength", c.minScanLength, 1)
	p.atLeast("zeropadding", zeroPadding, 0)
	p.fraction("hotspotdatafraction", c.hotspotData)
	p.fraction("hotspotopnfraction", c.hotspotOpn)
	if p.err != nil {
		return nil, p.err
	}
	if fieldCount > 1<<16 {
		return nil, fmt.Errorf("fieldcount must be at most %d, not %d (from %s)", 1<<16, fieldCount, props["fieldcount"].from)
	}
	c.fieldCount = int(fieldCount)
	if zeroPadding > int64(maxKeyLength-len(keyPrefix)) {
		return nil, fmt.Errorf("zeropadding must be at most %d, not %d (from %s): keys are VARCHAR(%d)",
			maxKeyLength-len(keyPrefix), zeroPadding, props["zeropadding"].from, maxKeyLength)
	}
	c.zeroPadding = int(zeroPadding)
	if _, ok := props["insertcount"]; !ok && c.insertStart >= c.recordCount {
		return nil, fmt.Errorf("insertstart (%d, from %s) is not below recordcount (%d), and no insertcount says how many keys this client loads: "+
			"give recordcount as the whole table's count and insertcount as this client's share",
			c.insertStart, props["insertstart"].from, c.recordCount)
	}
	if c.insertCount < 1 {
		return nil, fmt.Errorf("insertcount must be at least 1, not %d (from %s)", c.insertCount, fromOr(props, "insertcount", "recordcount - insertstart"))
	}
	if c.insertStart+c.insertCount > c.recordCount {
		return nil, fmt.Errorf("insertstart (%d) + insertcount (%d) exceeds recordcount (%d)", c.insertStart, c.insertCount, c.recordCount)
	}
	if (c.fieldLengthDist == distUniform || c.fieldLengthDist == distZipfian) && c.minFieldLength > c.fieldLength {
		return nil, fmt.Errorf("minfieldlength (%d) exceeds fieldlength (%d)", c.minFieldLength, c.fieldLength)
	}
	if c.minFieldLength < 1 {
		c.minFieldLength = 1
	}
	if c.maxScanLength < c.minScanLength {
		return nil, fmt.Errorf("maxscanlength (%d) is less than minscanlength (%d)", c.maxScanLength, c.minScanLength)
	}
	if c.zipfianConstant < 0 || c.zipfianConstant >= 1 {
		return nil, fmt.Errorf("zipfianconstant must be at least 0 and less than 1, not %s (from %s)",
			formatFloat(c.zipfianConstant), props["zipfianconstant"].from)
	}
	if c.requestDist == distExponential && (c.expPercentile <= 0 || c.expPercentile >= 100 || c.expFrac <= 0) {
		return nil, fmt.Errorf("exponential.percentile must be in (0, 100) and exponential.frac positive, not %s and %s",
			formatFloat(c.expPercentile), formatFloat(c.expFrac))
	}

	var sum float64
	for i, f := range c.proportions {
		if f < 0 {
			return nil, fmt.Errorf("%s must not be negative, not %s (from %s)", opProperties[i], formatFloat(f), props[opProperties[i]].from)
		}
		sum += f
	}
	if sum == 0 {
		return nil, fmt.Errorf("operation proportions are all 0: give at least one of %s a positive value", strings.Join(opProperties[:], ", "))
	}
	if sum < 1-1e-9 || sum > 1+1e-9 {
		// As YCSB's DiscreteGenerator, which divides each weight by
		// their sum.
		parts := make([]string, 0, numOps)
		for i, f := range c.proportions {
			c.proportions[i] = f / sum
			if f > 0 {
				parts = append(parts, opNames[i]+"="+strconv.FormatFloat(c.proportions[i], 'g', 4, 64))
			}
		}
		c.warnings = append(c.warnings, fmt.Sprintf("operation proportions sum to %s, not 1: rescaled as YCSB does, to %s",
			strconv.FormatFloat(sum, 'g', 12, 64), strings.Join(parts, " ")))
	}
	v := props["hdrhistogram.percentiles"]
	for _, f := range strings.Split(v.value, ",") {
		pct, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(pct > 0 && pct <= 100) {
			return nil, fmt.Errorf("invalid hdrhistogram.percentiles %q (from %s): use percentiles in (0, 100] separated by commas, such as 50,95,99", v.value, v.from)
		}
		c.percentiles = append(c.percentiles, pct)
	}
	if c.fieldLengthDist == distHistogram {
		v := props["fieldlengthhistogram"]
		h, err := readLengthHistogram(v.value)
		if err != nil {
			return nil, fmt.Errorf("fieldlengthhistogram (from %s): %v", v.from, err)
		}
		c.fieldHistogram = h
	}
	// A worker, and a loader, hold a row's values and the server's
	// answer: refused here, before anything is allocated, in the
	// property's name rather than as the runtime's fatal out of memory.
	if err := membudget.Check("fieldlength", c.maxFieldLength(), rowBuffers*int64(c.fieldCount),
		fmt.Sprintf("byte of field length: fieldcount %d, each held twice", c.fieldCount),
		"or fewer fields (fieldcount)"); err != nil {
		return nil, err
	}
	return c, nil
}

// rowBuffers is how many copies of a row's values a worker or a loader
// holds at once: its own buffers and the server's answer (or the COPY
// stream's encoding).
const rowBuffers = 2

var _ workload.WorkerSizer = (*ycsb)(nil)

// WorkerBytes implements the workload.WorkerSizer interface: a worker's
// value buffers and a row read back, fieldcount × fieldlength each.
func (g *ycsb) WorkerBytes() (int64, string) {
	c, err := g.config()
	if err != nil {
		return 0, ""
	}
	return membudget.Mul(rowBuffers, membudget.Mul(int64(c.fieldCount), c.maxFieldLength())),
		fmt.Sprintf("fieldcount %d × fieldlength %d", c.fieldCount, c.maxFieldLength())
}

func fromOr(props map[string]prop, key, def string) string {
	if v, ok := props[key]; ok {
		return v.from
	}
	return def
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// expectedNewKeys is CoreWorkload's allowance of inserted keys in the
// zipfian key range: operationcount * insertproportion * 2, from the
// operationcount given (0 included, YCSB's "no limit", which allows
// none), or recordcount when none is (YCSB then refuses the zipfian;
// stampede's runs are usually bounded by time, not by a count).
func (c *config) expectedNewKeys() int64 {
	ops := c.operationCount
	if !c.operationCountSet {
		ops = c.recordCount
	}
	return int64(float64(ops) * c.proportions[opInsert] * 2)
}

// maxFieldLength is the longest value the field length distribution
// draws.
func (c *config) maxFieldLength() int64 {
	if c.fieldHistogram != nil {
		return c.fieldHistogram.max()
	}
	return c.fieldLength
}

// fieldName returns the name of field i.
func (c *config) fieldName(i int) string { return c.fieldPrefix + strconv.Itoa(i) }
