package k8s

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/stampede-bench/stampede/internal/golden"
)

// decode splits a manifest into its documents and decodes each strictly
// (an unknown or misspelt field is an error) into the type its kind says.
func decode(t *testing.T, b []byte) (*corev1.PersistentVolumeClaim, *batchv1.Job) {
	t.Helper()
	var pvc *corev1.PersistentVolumeClaim
	var job *batchv1.Job
	for _, doc := range bytes.Split(b, []byte("---\n")) {
		var kind struct{ Kind string }
		if err := yaml.Unmarshal(doc, &kind); err != nil {
			t.Fatal(err)
		}
		switch kind.Kind {
		case "PersistentVolumeClaim":
			pvc = &corev1.PersistentVolumeClaim{}
			if err := yaml.UnmarshalStrict(doc, pvc); err != nil {
				t.Fatalf("claim: %v", err)
			}
		case "Job":
			job = &batchv1.Job{}
			if err := yaml.UnmarshalStrict(doc, job); err != nil {
				t.Fatalf("job: %v", err)
			}
		default:
			t.Fatalf("unexpected document:\n%s", doc)
		}
	}
	return pvc, job
}

func TestManifest(t *testing.T) {
	s := Spec{Name: "ycsb-a", Namespace: "bench", Image: "registry.example.com/stampede:0.1", Clients: 8,
		Args:           []string{"run", "ycsb", "--workload", "a", "--max-rate", "80000", "--duration", "10m", "postgresql://bench@pg-lb:5432/ycsb"},
		PasswordSecret: "bench-password", ResultsSize: "5Gi", CPU: "2", Memory: "2Gi"}
	b, err := s.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "ycsb-a.golden.yaml"), b)
	pvc, job := decode(t, b)
	if pvc == nil || pvc.Name != "ycsb-a-results" || pvc.Namespace != "bench" || pvc.Spec.AccessModes[0] != corev1.ReadWriteMany ||
		pvc.Spec.Resources.Requests.Storage().String() != "5Gi" {
		t.Errorf("claim %+v", pvc)
	}
	js := job.Spec
	if job.Name != "ycsb-a" || *js.Completions != 8 || *js.Parallelism != 8 || *js.CompletionMode != batchv1.IndexedCompletion || *js.BackoffLimit != 0 {
		t.Errorf("job spec %+v", js)
	}
	pod := js.Template.Spec
	c := pod.Containers[0]
	if pod.RestartPolicy != corev1.RestartPolicyNever || c.Image != s.Image || pod.Volumes[0].PersistentVolumeClaim.ClaimName != "ycsb-a-results" ||
		c.VolumeMounts[0].MountPath != ResultsDir || c.Env[0].Name != "PGPASSWORD" || c.Env[0].ValueFrom.SecretKeyRef.Name != "bench-password" ||
		c.Resources.Limits.Cpu().String() != "2" || c.Resources.Requests.Memory().String() != "2Gi" {
		t.Errorf("pod %+v", pod)
	}
	want := append(slices.Clone(s.Args), "--clients", "8", "--client-index", "$(JOB_COMPLETION_INDEX)", "--start-at", "next:1m",
		"--results-dir", "/results", "--results-url", "sqlite:/tmp/stampede-index.sqlite", "--tag", "job=ycsb-a")
	if !slices.Equal(c.Args, want) {
		t.Errorf("args %q, want %q", c.Args, want)
	}
	if len(pod.TopologySpreadConstraints) != 1 || pod.TopologySpreadConstraints[0].LabelSelector.MatchLabels["app.kubernetes.io/instance"] != "ycsb-a" ||
		js.Template.Labels["app.kubernetes.io/instance"] != "ycsb-a" {
		t.Errorf("the clients are not spread over the nodes: %+v", pod.TopologySpreadConstraints)
	}

	// An existing claim: no claim written, the pods mount it.
	s.ResultsClaim = "shared-results"
	b, err = s.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if pvc, job := decode(t, b); pvc != nil || job.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != "shared-results" {
		t.Errorf("with --results-claim: claim %v, volume %+v", pvc, job.Spec.Template.Spec.Volumes)
	}
}

// TestResultsURLSecret: with --results-url-secret the pods get the
// store's URL from the Secret, never inline, write their runs into the
// store (--results-dir none) and mount no volume; no claim is made.
func TestResultsURLSecret(t *testing.T) {
	s := Spec{Name: "x", Image: "i", Clients: 3, Args: []string{"run", "ycsb", "postgresql://bench@db/ycsb"}, ResultsURLSecret: "results-url"}
	objs, err := s.Objects()
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 {
		t.Fatalf("%d objects, want the Job alone (no claim)", len(objs))
	}
	job := objs[0].(*batchv1.Job)
	pod := job.Spec.Template.Spec
	c := pod.Containers[0]
	if len(pod.Volumes) != 0 || len(c.VolumeMounts) != 0 {
		t.Errorf("volumes %v, mounts %v: want none", pod.Volumes, c.VolumeMounts)
	}
	args := strings.Join(c.Args, " ")
	if !strings.Contains(args, "--results-dir none") || strings.Contains(args, "--results-url") {
		t.Errorf("args %q: want --results-dir none and no --results-url (the URL comes from the Secret)", args)
	}
	var got *corev1.EnvVar
	for i, e := range c.Env {
		if e.Name == "STAMPEDE_RESULTS_URL" {
			got = &c.Env[i]
		}
	}
	if got == nil || got.Value != "" || got.ValueFrom == nil || got.ValueFrom.SecretKeyRef == nil ||
		got.ValueFrom.SecretKeyRef.Name != "results-url" || got.ValueFrom.SecretKeyRef.Key != "url" {
		t.Errorf("STAMPEDE_RESULTS_URL: %+v, want from Secret results-url, key url", got)
	}
}

func TestValidate(t *testing.T) {
	ok := Spec{Name: "x", Image: "i", Clients: 2, Args: []string{"run", "ycsb"}}
	for _, tc := range []struct {
		edit func(*Spec)
		err  string
	}{
		{func(s *Spec) {}, ""},
		{func(s *Spec) { s.Name = "Bad_Name" }, "--name \"Bad_Name\": give a Kubernetes name"},
		{func(s *Spec) { s.Name = strings.Repeat("a", 60) }, "at most 52 characters"},
		{func(s *Spec) { s.Namespace = "a b" }, "--namespace"},
		{func(s *Spec) { s.Image = "" }, "--image: give the container image"},
		{func(s *Spec) { s.Image = "bad image" }, "--image \"bad image\" is not an image reference"},
		{func(s *Spec) { s.Image = "Registry/Stampede:1" }, "is not an image reference"},
		{func(s *Spec) { s.Image = "stampede:" }, "is not an image reference"},
		{func(s *Spec) { s.Image = "stampede:0.1@sha256:abc" }, "is not an image reference"},
		{func(s *Spec) { s.Image = "i:1" }, ""},
		{func(s *Spec) { s.Image = "registry.example.com:5000/team/stampede:0.1" }, ""},
		{func(s *Spec) { s.Image = "stampede@sha256:" + strings.Repeat("ab", 32) }, ""},
		{func(s *Spec) { s.Clients = 0 }, "--clients 0"},
		{func(s *Spec) { s.Args = []string{"init", "ycsb"} }, "give each client's command line after --"},
		{func(s *Spec) { s.Args = nil }, "give each client's command line after --"},
		{func(s *Spec) { s.CPU = "two" }, "--cpu \"two\" is not a positive Kubernetes quantity"},
		{func(s *Spec) { s.CPU = "-1" }, "--cpu \"-1\" is not a positive"},
		{func(s *Spec) { s.Memory = "0" }, "--memory \"0\""},
		{func(s *Spec) { s.ResultsSize = "1m" }, "--results-size \"1m\""},
		{func(s *Spec) { s.CPU, s.Memory, s.ResultsSize = "500m", "1Mi", "10Gi" }, ""},
		{func(s *Spec) { s.ResultsSize = "1 GB" }, "--results-size"},
		{func(s *Spec) { s.PasswordSecret = "A" }, "--password-secret"},
		{func(s *Spec) { s.ResultsURLSecret = "Res_URL" }, "--results-url-secret \"Res_URL\" is not a Kubernetes name"},
		{func(s *Spec) { s.ResultsURLSecret, s.ResultsClaim = "res", "shared" }, "drop --results-claim and --results-size"},
		{func(s *Spec) { s.ResultsURLSecret, s.ResultsSize = "res", "5Gi" }, "drop --results-claim and --results-size"},
		{func(s *Spec) { s.ResultsURLSecret = "res" }, ""},
		// Secrets and claims are DNS-1123 subdomains (issue 31: dotted
		// names were refused); the Job's name and the namespace are
		// labels.
		{func(s *Spec) { s.PasswordSecret = "db.pass" }, ""},
		{func(s *Spec) { s.ResultsURLSecret = "store.url" }, ""},
		{func(s *Spec) { s.ResultsClaim = "my.claim" }, ""},
		{func(s *Spec) { s.PasswordSecret = strings.Repeat("a.", 126) + "b" }, ""},
		{func(s *Spec) { s.PasswordSecret = strings.Repeat("a.", 126) + "bc" }, "--password-secret"},
		{func(s *Spec) { s.PasswordSecret = "db..pass" }, "--password-secret \"db..pass\" is not a Kubernetes name"},
		{func(s *Spec) { s.ResultsURLSecret = "store.url." }, "--results-url-secret"},
		{func(s *Spec) { s.ResultsClaim = ".claim" }, "--results-claim \".claim\" is not a Kubernetes name: give the name of an existing ReadWriteMany PersistentVolumeClaim (lower-case letters, digits, '-' and '.'"},
		{func(s *Spec) { s.ResultsClaim = "My.Claim" }, "--results-claim"},
		{func(s *Spec) { s.Name = "my.job" }, "--name \"my.job\": give a Kubernetes name"},
		{func(s *Spec) { s.Namespace = strings.Repeat("n", 63) }, ""},
		{func(s *Spec) { s.Namespace = strings.Repeat("n", 64) }, "at most 63 characters"},
		{func(s *Spec) { s.Namespace = "my.ns" }, "--namespace \"my.ns\" is not a Kubernetes namespace name"},
	} {
		s := ok
		tc.edit(&s)
		err := s.Validate()
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%+v: %v, want %q", s, err, tc.err)
		}
	}
}

// TestInitManifest: gen k8s --init writes an indexed Job of split-load
// pods: each runs init with --clients N and its completion index, with no
// start time, results volume or claim; Validate refuses a run command
// line with --init and the run-only flags.
func TestInitManifest(t *testing.T) {
	s := Spec{Name: "load", Image: "i", Clients: 4, Init: true,
		Args: []string{"init", "ycsb", "-p", "recordcount=1000000", "postgresql://bench@db/ycsb"}}
	b, err := s.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	pvc, job := decode(t, b)
	if pvc != nil {
		t.Errorf("an init Job with a results claim:\n%s", b)
	}
	if job == nil {
		t.Fatalf("no Job:\n%s", b)
	}
	want := []string{"init", "ycsb", "-p", "recordcount=1000000", "postgresql://bench@db/ycsb", "--clients", "4", "--client-index", "$(JOB_COMPLETION_INDEX)"}
	c := job.Spec.Template.Spec.Containers[0]
	if !slices.Equal(c.Args, want) {
		t.Errorf("args %q, want %q", c.Args, want)
	}
	if *job.Spec.Completions != 4 || *job.Spec.Parallelism != 4 || *job.Spec.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completions %d, parallelism %d, mode %s", *job.Spec.Completions, *job.Spec.Parallelism, *job.Spec.CompletionMode)
	}
	if len(c.VolumeMounts) != 0 || len(job.Spec.Template.Spec.Volumes) != 0 {
		t.Errorf("an init pod with volumes: %+v %+v", c.VolumeMounts, job.Spec.Template.Spec.Volumes)
	}
	for _, tc := range []struct {
		edit func(*Spec)
		want string
	}{
		{func(s *Spec) { s.Args = []string{"run", "ycsb", "u"} }, "--init: give each client's init command line"},
		{func(s *Spec) { s.ResultsClaim = "r" }, "drop --results-claim, --results-url-secret and --start-at"},
		{func(s *Spec) { s.StartAt = "next:1m" }, "drop --results-claim, --results-url-secret and --start-at"},
		{func(s *Spec) { s.ResultsURLSecret = "store" }, "drop --results-claim, --results-url-secret and --start-at"},
		{func(s *Spec) { s.Init = false }, "give each client's command line after --"},
	} {
		e := s
		tc.edit(&e)
		if err := e.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate: %v, want %q", err, tc.want)
		}
	}
}

// TestPodsRunAsTheImageUser: every Job's pods (a run's with a new claim,
// with an existing one, with the results store; a split load's) run as
// the user and group of this repository's image, read from its
// Containerfile's USER line, as non-root, with that group as fsGroup so
// that a volume owned by root is writable to them.
func TestPodsRunAsTheImageUser(t *testing.T) {
	cf, err := os.ReadFile(filepath.Join("..", "Containerfile"))
	if err != nil {
		t.Fatal(err)
	}
	var user, group int64 = -1, -1
	for _, line := range strings.Split(string(cf), "\n") {
		if rest, ok := strings.CutPrefix(line, "USER "); ok {
			u, g, _ := strings.Cut(strings.TrimSpace(rest), ":")
			user, _ = strconv.ParseInt(u, 10, 64)
			group, _ = strconv.ParseInt(g, 10, 64)
		}
	}
	if user <= 0 || group <= 0 {
		t.Fatalf("no numeric USER uid:gid in the Containerfile")
	}
	run := []string{"run", "ycsb", "postgresql://bench@db/ycsb"}
	for _, s := range []Spec{
		{Name: "claim", Image: "i", Clients: 2, Args: run},
		{Name: "shared", Image: "i", Clients: 2, Args: run, ResultsClaim: "shared"},
		{Name: "store", Image: "i", Clients: 2, Args: run, ResultsURLSecret: "store"},
		{Name: "load", Image: "i", Clients: 2, Init: true, Args: []string{"init", "ycsb", "postgresql://bench@db/ycsb"}},
	} {
		b, err := s.Manifest()
		if err != nil {
			t.Fatal(err)
		}
		_, job := decode(t, b)
		sc := job.Spec.Template.Spec.SecurityContext
		if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser != user ||
			sc.RunAsGroup == nil || *sc.RunAsGroup != group || sc.FSGroup == nil || *sc.FSGroup != group {
			t.Errorf("%s: pod securityContext %+v, want runAsNonRoot, runAsUser %d, runAsGroup and fsGroup %d (the Containerfile's USER)", s.Name, sc, user, group)
		}
	}
}
