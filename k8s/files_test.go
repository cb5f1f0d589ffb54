package k8s

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// TestFiles: the files a clients' command line names, in each form of
// their flags, are carried in a ConfigMap the pods mount read-only, and
// the pods' arguments name them there (weights kept); the manifest is
// valid against Kubernetes' schema, and the ConfigMap holds the files'
// bytes.
func TestFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	q, u := write("q.sql", "SELECT 1;\n"), write("u.sql", "UPDATE t SET v = v + 1;\n")
	in, ck := write("init.sql", "CREATE TABLE t (v int);\n"), write("check.sql", "SELECT true;\n")
	props := write("mywork", "recordcount=100\n")
	url := "postgresql://bench@db/x"
	for _, tc := range []struct {
		name string
		init bool
		args []string
		want []string // the pods' arguments, before gen k8s's own
		keys []string
	}{
		{"-f with weights", false, []string{"run", "sql", "-f", q + "@3", "--file=" + u + "@1", url},
			[]string{"run", "sql", "-f", "/scripts/q.sql@3", "--file=/scripts/u.sql@1", url}, []string{"q.sql", "u.sql"}},
		{"-fFILE and -f=FILE", false, []string{"run", "sql", "-f" + q, "-f=" + u + "@2", url},
			[]string{"run", "sql", "-f/scripts/q.sql", "-f=/scripts/u.sql@2", url}, []string{"q.sql", "u.sql"}},
		{"--file FILE, --check-file", false, []string{"run", "sql", "--file", q, "--check-file", ck, url},
			[]string{"run", "sql", "--file", "/scripts/q.sql", "--check-file", "/scripts/check.sql", url}, []string{"check.sql", "q.sql"}},
		{"the same file twice", false, []string{"run", "sql", "-f", q + "@1", "-f", q + "@2", url},
			[]string{"run", "sql", "-f", "/scripts/q.sql@1", "-f", "/scripts/q.sql@2", url}, []string{"q.sql"}},
		{"init file", true, []string{"init", "sql", "--init-file=" + in, url},
			[]string{"init", "sql", "--init-file=/scripts/init.sql", url}, []string{"init.sql"}},
		{"ycsb -P, and YCSB's own", false, []string{"run", "ycsb", "-P", props, "-P", "workloads/workloada", url},
			[]string{"run", "ycsb", "-P", "/scripts/mywork", "-P", "workloads/workloada", url}, []string{"mywork"}},
		{"no files", false, []string{"run", "tpcc", "--warehouses", "2", url}, []string{"run", "tpcc", "--warehouses", "2", url}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files, err := Files(tc.args, os.ReadFile)
			if err != nil {
				t.Fatal(err)
			}
			s := Spec{Name: "sqlf", Image: "i:1", Clients: 2, Args: tc.args, Init: tc.init, Files: files}
			b, err := s.Manifest()
			if err != nil {
				t.Fatal(err)
			}
			want := 2 + min(len(tc.keys), 1)
			if tc.init {
				want--
			}
			if n, err := validateManifest(t, b); err != nil || n != want {
				t.Fatalf("%d documents valid (want %d): %v\n%s", n, want, err, b)
			}
			var cm *corev1.ConfigMap
			var job *batchv1.Job
			for _, doc := range bytes.Split(b, []byte("---\n")) {
				switch {
				case bytes.Contains(doc, []byte("kind: ConfigMap")):
					cm = &corev1.ConfigMap{}
					if err := yaml.UnmarshalStrict(doc, cm); err != nil {
						t.Fatal(err)
					}
				case bytes.Contains(doc, []byte("kind: Job")):
					job = &batchv1.Job{}
					if err := yaml.UnmarshalStrict(doc, job); err != nil {
						t.Fatal(err)
					}
				}
			}
			c := job.Spec.Template.Spec.Containers[0]
			if got := c.Args[:len(tc.want)]; !slices.Equal(got, tc.want) {
				t.Errorf("pod args %q, want %q", got, tc.want)
			}
			if len(tc.keys) == 0 {
				if cm != nil {
					t.Errorf("a ConfigMap without files")
				}
				return
			}
			var keys []string
			for k, v := range cm.Data {
				keys = append(keys, k)
				src, err := os.ReadFile(filepath.Join(dir, k))
				if err != nil || string(src) != v {
					t.Errorf("ConfigMap %s: %q, the file %q (%v)", k, v, src, err)
				}
			}
			slices.Sort(keys)
			if !slices.Equal(keys, tc.keys) {
				t.Errorf("ConfigMap keys %q, want %q", keys, tc.keys)
			}
			mounted := false
			for _, m := range c.VolumeMounts {
				if m.MountPath == ScriptsDir {
					mounted = m.ReadOnly
					for _, v := range job.Spec.Template.Spec.Volumes {
						if v.Name == m.Name && (v.ConfigMap == nil || v.ConfigMap.Name != cm.Name) {
							t.Errorf("volume %s is not the ConfigMap %s", v.Name, cm.Name)
						}
					}
				}
			}
			if !mounted {
				t.Errorf("ConfigMap not mounted read-only at %s: %+v", ScriptsDir, c.VolumeMounts)
			}
		})
	}
}

// TestFilesRefused: a file the pods could not get is refused, naming the
// flag and the file.
func TestFilesRefused(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, d := range []string{a, b} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "q.sql"), []byte("SELECT 1;\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "bad name.sql"), []byte("SELECT 1;\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.sql")
	if err := os.WriteFile(big, bytes.Repeat([]byte("SELECT 1;\n"), 110_000), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.sql")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "sql", "-f", missing, "U"}, "-f " + missing + ": no such file or directory"},
		{[]string{"run", "sql", "--init-file", missing, "U"}, "--init-file " + missing + ": no such file"},
		{[]string{"run", "sql", "-f", "-", "U"}, "-f -: a pod has no standard input"},
		{[]string{"run", "sql", "-f", filepath.Join(a, "q.sql"), "-f", filepath.Join(b, "q.sql"), "U"}, "two files named q.sql"},
		{[]string{"run", "sql", "-f", filepath.Join(dir, "bad name.sql"), "U"}, "rename it"},
		{[]string{"run", "sql", "-f", big, "U"}, "more than a ConfigMap holds"},
		{[]string{"run", "sql", "-f", missing + "@0", "U"}, "a weight of 0"},
	} {
		_, err := Files(tc.args, os.ReadFile)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line with %q", tc.args, err, tc.want)
		}
	}
	if _, err := Files([]string{"run", "sql", "-f", missing}, func(string) ([]byte, error) { return nil, fs.ErrPermission }); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("unreadable file: %v", err)
	}
}
