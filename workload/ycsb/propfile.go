package ycsb

// Property is one key=value of a YCSB property file.
type Property struct {
	Key, Value string
	// Line is the 1-based line the entry starts on.
	Line int
}

// ReadPropertyFile reads a YCSB property file (-P) as YCSB's Client reads
// it with java.util.Properties, for the command line's own properties
// (db.url, threadcount, ...): its entries in order, or an error of one
// line naming the file and line.
func ReadPropertyFile(name string) ([]Property, error) {
	entries, _, err := readPropertyFile(name)
	if err != nil {
		return nil, err
	}
	out := make([]Property, len(entries))
	for i, e := range entries {
		out[i] = Property{Key: e.key, Value: e.value, Line: e.line}
	}
	return out, nil
}
