package runlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
)

// The modes of what a run writes: only its owner may read it, whatever the
// umask, since a run directory holds hosts, user names, command lines and
// tags.
const (
	dirPerm  = 0o700
	filePerm = 0o600
)

// marshalIndent encodes v as two-space indented JSON without HTML escaping,
// followed by a newline.
func marshalIndent(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// marshalLine encodes v as compact JSON without HTML escaping, followed by a
// newline.
func marshalLine(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeFileAtomic replaces dir/name with data: it writes a temporary file in
// dir, fsyncs it, renames it over dir/name and fsyncs dir.
func writeFileAtomic(dir, name string, data []byte) error {
	if err := replaceFile(dir, name, data); err != nil {
		return err
	}
	return syncDir(dir)
}

// replaceFile is writeFileAtomic without the fsync of dir: the new name is
// durable once dir is synced, by the caller's next writeFileAtomic in dir.
func replaceFile(dir, name string, data []byte) (err error) {
	f, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	if err = f.Chmod(filePerm); err != nil {
		_ = f.Close()
		return err
	}
	if err = f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, name))
}

// syncDir fsyncs a directory so that entries created, renamed or removed in
// it are durable. It is a no-op on Windows, which cannot fsync directories.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// isRegular reports whether path exists and is a regular file.
func isRegular(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// isRunDir reports whether dir contains a run.json.
func isRunDir(dir string) bool {
	return isRegular(filepath.Join(dir, RunFile))
}

// joinErr appends err to *dst, keeping the errors of earlier steps.
func joinErr(dst *error, err error) {
	if err != nil {
		*dst = errors.Join(*dst, err)
	}
}
