package k8s

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/stampede-bench/stampede/internal/lazyre"
	"github.com/stampede-bench/stampede/pgscript"
)

// ScriptsDir is where a client pod mounts the ConfigMap of the files its
// command line names (File), read-only.
const ScriptsDir = "/scripts"

// maxFilesBytes bounds the files a manifest carries: a ConfigMap holds at
// most 1 MiB, its keys and metadata included.
const maxFilesBytes = 1000 * 1024

// File is a file of the clients' command line (-f, --init-file,
// --check-file, -P) that the pods get from a ConfigMap, at
// ScriptsDir/Key: the argument Args[Arg] names it, Prefix and Suffix being
// the argument's text around the path (--file=, @WEIGHT).
type File struct {
	Arg            int
	Prefix, Suffix string
	Path           string
	Key            string
	Data           []byte
}

// fileFlags are the flags whose values name files on the machine that
// writes the manifest; weighted ones may end in @WEIGHT.
var fileFlags = map[string]bool{"-f": true, "--file": true, "--init-file": false, "--check-file": false, "-P": false, "--property-file": false}

// keyRE is what a ConfigMap key may be.
var keyRE = lazyre.New(`^[-._a-zA-Z0-9]+$`)

// Files finds the files that args (the clients' command line) names and
// reads them with read: each is kept under its own base name (the name
// the run gives its script, in its series), which two different files may
// not share. A YCSB -P naming no file is YCSB's own workload, left alone.
// The errors name the flag and the file, and what to do.
func Files(args []string, read func(string) ([]byte, error)) ([]File, error) {
	var files []File
	byKey := map[string]string{}
	total := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		flag, value, prefix, idx := "", "", "", i
		if name, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "--") {
			if _, known := fileFlags[name]; known {
				flag, value, prefix = name, v, name+"="
			}
		} else if _, known := fileFlags[a]; known && i+1 < len(args) {
			flag, value, idx = a, args[i+1], i+1
			i++
		} else if len(a) > 2 && (strings.HasPrefix(a, "-f") || strings.HasPrefix(a, "-P")) && !strings.HasPrefix(a, "--") {
			// -fFILE, -f=FILE
			flag, prefix = a[:2], a[:2]
			if a[2] == '=' {
				prefix = a[:3]
			}
			value = a[len(prefix):]
		}
		if flag == "" {
			continue
		}
		p, suffix := value, ""
		if fileFlags[flag] {
			name, _, err := pgscript.ParseFileArg(value)
			if err != nil {
				return nil, fmt.Errorf("%s %w", flag, err)
			}
			p, suffix = name, value[len(name):]
		}
		if p == "-" {
			return nil, fmt.Errorf("%s -: a pod has no standard input to read a script from: give the script's file", flag)
		}
		data, err := read(p)
		if errors.Is(err, fs.ErrNotExist) && (flag == "-P" || flag == "--property-file") {
			continue // YCSB's own workloads/workloadX, which run knows
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w: the pods get the file from the manifest, which gen k8s reads it into", flag, p, unwrapPath(err))
		}
		key := filepath.Base(p)
		if !keyRE().MatchString(key) || key == "." || key == ".." {
			return nil, fmt.Errorf("%s %s: a file carried in a ConfigMap is named with letters, digits, '-', '_' and '.' only: rename it", flag, p)
		}
		if other, ok := byKey[key]; ok && other != p {
			return nil, fmt.Errorf("%s %s and %s: two files named %s, which the pods would get in one directory: rename one", flag, other, p, key)
		}
		f := File{Arg: idx, Prefix: prefix, Suffix: suffix, Path: p, Key: key, Data: data}
		if _, ok := byKey[key]; !ok {
			total += len(key) + len(data)
		}
		byKey[key] = p
		if total > maxFilesBytes {
			return nil, fmt.Errorf("%s %s: the command line's files come to more than %d KiB, more than a ConfigMap holds: build them into the image, or mount a volume with them and give their paths there", flag, p, maxFilesBytes/1024)
		}
		files = append(files, f)
	}
	return files, nil
}

// unwrapPath returns the cause of a *fs.PathError, whose text repeats the
// path.
func unwrapPath(err error) error {
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// podArgs returns args with the files' paths replaced by their place in
// the pods.
func podArgs(args []string, files []File) []string {
	out := append([]string(nil), args...)
	for _, f := range files {
		out[f.Arg] = f.Prefix + path.Join(ScriptsDir, f.Key) + f.Suffix
	}
	return out
}

// configMapData splits the files into a ConfigMap's text and binary data.
func configMapData(files []File) (text map[string]string, binary map[string][]byte) {
	for _, f := range files {
		if utf8.Valid(f.Data) {
			if text == nil {
				text = map[string]string{}
			}
			text[f.Key] = string(f.Data)
			continue
		}
		if binary == nil {
			binary = map[string][]byte{}
		}
		binary[f.Key] = f.Data
	}
	return text, binary
}
