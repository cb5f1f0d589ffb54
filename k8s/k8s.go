// Package k8s writes the Kubernetes manifests that run one benchmark from
// many client pods: an indexed Job whose pods are the clients of one
// stampede run (run --clients N --client-index $(JOB_COMPLETION_INDEX)),
// spread over the cluster's nodes, starting together (--start-at) and
// writing their run directories to one shared volume, where `stampede
// report` merges them. Objects are built with k8s.io/api's types and
// written as YAML with sigs.k8s.io/yaml; no password is ever written.
package k8s

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/distribution/reference"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/stampede-bench/stampede/internal/lazyre"
)

// ResultsDir is where a client pod mounts the results volume and writes
// its run directory.
const ResultsDir = "/results"

// ImageUser is the user and group ID that this repository's image
// (its Containerfile's USER) runs as. The client pods run as it
// (runAsNonRoot, runAsUser, runAsGroup), whatever the image, and get it as
// their fsGroup: a volume owned by root (a new claim's, typically) is made
// group-writable for it, so that the clients can write their run
// directories there.
const ImageUser = 65532

// IndexVar is the variable Kubernetes sets in each pod of an indexed Job
// to the pod's index, from 0; the client's arguments name it as
// $(JOB_COMPLETION_INDEX), which the kubelet expands.
const IndexVar = "JOB_COMPLETION_INDEX"

// Spec says what the manifests run.
type Spec struct {
	// Name names the Job (and the volume claim it creates), and tags the
	// runs job=Name.
	Name      string
	Namespace string
	// Image is the container image with the stampede binary as its
	// entrypoint's first word (stampede).
	Image string
	// Clients is the number of client pods.
	Clients int
	// Args are the arguments of every client's `stampede`, without the
	// binary's name: run WORKLOAD [flags] URL... (Manifest adds the
	// client flags, the results directory and the job tag).
	Args []string
	// StartAt is the clients' --start-at (next:1m by default).
	StartAt string
	// PasswordSecret, when set, names a Secret whose key "password" the
	// pods get as PGPASSWORD: the URLs carry no password.
	PasswordSecret string
	// ResultsClaim names the PersistentVolumeClaim the pods write their
	// run directories to; "" makes one, Name-results, of ResultsSize
	// (ReadWriteMany: every client pod mounts it at once).
	ResultsClaim string
	ResultsSize  string
	// ResultsURLSecret, when set, names a Secret whose key "url" (a
	// postgresql:// results store) the pods get as STAMPEDE_RESULTS_URL:
	// each client writes its run into that store (--results-dir none),
	// and no volume is needed. The URL is never written in the manifest.
	ResultsURLSecret string
	// CPU and Memory, when set, are each client's requests and limits
	// (1, 2Gi): a client that shares its CPUs measures its own waits.
	CPU, Memory string
	// Init makes the Job a split load (gen k8s --init): Args are init
	// WORKLOAD [flags] URL..., each pod loads its share (init --clients
	// N --client-index $(JOB_COMPLETION_INDEX)), with no start time, run
	// directory, tag or results volume.
	Init bool
	// Files are the files the command line names (see Files), which the
	// manifest carries in a ConfigMap NAME-files mounted at ScriptsDir,
	// the pods' arguments naming them there.
	Files []File
}

// Kubernetes names, as its API server validates them:
//   - jobNameRE: the Job's name (--name), a DNS-1123 label short enough
//     to leave room for the suffixes of its pods' host names
//     (NAME-INDEX, a DNS-1123 label too: no dots) and of the claim and
//     ConfigMap it names (NAME-results, NAME-files);
//   - labelRE (at most 63 characters): a namespace's name;
//   - subdomainRE (at most 253 characters): a Secret's and a
//     PersistentVolumeClaim's name, DNS-1123 subdomains, dots allowed.
var (
	jobNameRE   = lazyre.New(`^[a-z0-9]([-a-z0-9]{0,50}[a-z0-9])?$`)
	labelRE     = lazyre.New(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	subdomainRE = lazyre.New(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

// isSubdomain reports whether name is a DNS-1123 subdomain.
func isSubdomain(name string) bool { return len(name) <= 253 && subdomainRE().MatchString(name) }

// subdomainRule says what a DNS-1123 subdomain is, for refusals.
const subdomainRule = "lower-case letters, digits, '-' and '.', at most 253 characters, starting and ending with a letter or digit"

// validImage reports whether image is a reference a container runtime
// pulls: [REGISTRY/]NAME[:TAG][@DIGEST] (distribution's grammar, which
// Docker and containerd use).
func validImage(image string) bool {
	_, err := reference.ParseNormalizedNamed(image)
	return err == nil
}

// Validate checks s, naming the flags of `stampede gen k8s`.
func (s Spec) Validate() error {
	switch {
	case !jobNameRE().MatchString(s.Name):
		return fmt.Errorf("--name %q: give a Kubernetes name: lower-case letters, digits and '-', at most 52 characters, starting and ending with a letter or digit", s.Name)
	case s.Namespace != "" && !labelRE().MatchString(s.Namespace):
		return fmt.Errorf("--namespace %q is not a Kubernetes namespace name: lower-case letters, digits and '-', at most 63 characters, starting and ending with a letter or digit", s.Namespace)
	case s.Image == "":
		return fmt.Errorf("--image: give the container image whose entrypoint is the stampede binary")
	case !validImage(s.Image):
		return fmt.Errorf("--image %q is not an image reference: give [REGISTRY/]NAME[:TAG][@sha256:DIGEST], lower-case, without spaces, such as registry.example.com/stampede:0.1", s.Image)
	case s.Clients < 1 || s.Clients > 10000:
		return fmt.Errorf("--clients %d: give the number of client pods, from 1 to 10000", s.Clients)
	case s.Init && (len(s.Args) < 2 || s.Args[0] != "init"):
		return fmt.Errorf("--init: give each client's init command line after --, as `stampede gen k8s --init --clients 4 --image IMAGE -- init ycsb -p recordcount=100000000 URL`")
	case !s.Init && (len(s.Args) < 2 || s.Args[0] != "run"):
		return fmt.Errorf("give each client's command line after --, as `stampede gen k8s --clients 4 --image IMAGE -- run ycsb --max-rate 20000 --duration 10m URL`")
	case s.Init && (s.ResultsClaim != "" || s.StartAt != "" || s.ResultsURLSecret != ""):
		return fmt.Errorf("--init writes a load's Job, which has no run directories and no common start: drop --results-claim, --results-url-secret and --start-at")
	case s.PasswordSecret != "" && !isSubdomain(s.PasswordSecret):
		return fmt.Errorf("--password-secret %q is not a Kubernetes name: give the name of the Secret that holds the password (%s)", s.PasswordSecret, subdomainRule)
	case s.ResultsURLSecret != "" && !isSubdomain(s.ResultsURLSecret):
		return fmt.Errorf("--results-url-secret %q is not a Kubernetes name: give the name of the Secret whose key \"url\" holds the results store's URL (%s)", s.ResultsURLSecret, subdomainRule)
	case s.ResultsURLSecret != "" && (s.ResultsClaim != "" || s.ResultsSize != ""):
		return fmt.Errorf("--results-url-secret writes the runs into the results store, with no volume: drop --results-claim and --results-size")
	case s.ResultsClaim != "" && !isSubdomain(s.ResultsClaim):
		return fmt.Errorf("--results-claim %q is not a Kubernetes name: give the name of an existing ReadWriteMany PersistentVolumeClaim (%s)", s.ResultsClaim, subdomainRule)
	}
	for flag, q := range map[string]string{"--results-size": s.ResultsSize, "--cpu": s.CPU, "--memory": s.Memory} {
		if q == "" {
			continue
		}
		v, err := resource.ParseQuantity(q)
		if err != nil || v.Sign() <= 0 || (flag != "--cpu" && v.Value() < 1<<20) {
			return fmt.Errorf("%s %q is not a positive Kubernetes quantity (such as 2 or 500m CPUs, 4Gi of memory or storage, at least 1Mi)", flag, q)
		}
	}
	return nil
}

// ClientArgs returns the arguments of every client's stampede: Args, then
// the client flags, the results directory and the job tag.
func (s Spec) ClientArgs() []string {
	start := s.StartAt
	if start == "" {
		start = "next:1m"
	}
	args := append([]string(nil), s.Args...)
	if s.Init {
		return append(args, "--clients", strconv.Itoa(s.Clients), "--client-index", "$("+IndexVar+")")
	}
	if s.ResultsURLSecret != "" {
		// The store's URL comes from the Secret, as STAMPEDE_RESULTS_URL.
		return append(args, "--clients", strconv.Itoa(s.Clients), "--client-index", "$("+IndexVar+")",
			"--start-at", start, "--results-dir", "none", "--tag", "job="+s.Name)
	}
	// The index of the run directories is pod-local: many pods writing one
	// SQLite file on a shared volume is unsafe, and `stampede runs`
	// indexes the run directories it finds there.
	return append(args, "--clients", strconv.Itoa(s.Clients), "--client-index", "$("+IndexVar+")",
		"--start-at", start, "--results-dir", ResultsDir, "--results-url", "sqlite:/tmp/stampede-index.sqlite", "--tag", "job="+s.Name)
}

// Claim returns the name of the results volume claim.
func (s Spec) Claim() string {
	if s.ResultsClaim != "" {
		return s.ResultsClaim
	}
	return s.Name + "-results"
}

// Objects returns the manifests' objects: the results volume claim (unless
// ResultsClaim names one) and the Job.
func (s Spec) Objects() ([]any, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	labels := map[string]string{"app.kubernetes.io/name": "stampede", "app.kubernetes.io/instance": s.Name}
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: s.Namespace, Labels: labels}
	}
	var objs []any
	if s.ResultsClaim == "" && s.ResultsURLSecret == "" && !s.Init {
		size := s.ResultsSize
		if size == "" {
			size = "1Gi"
		}
		objs = append(objs, &corev1.PersistentVolumeClaim{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
			ObjectMeta: meta(s.Claim()),
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}},
			},
		})
	}
	n := int32(s.Clients)
	indexed := batchv1.IndexedCompletion
	noRetry := int32(0)
	user, nonRoot := int64(ImageUser), true
	container := corev1.Container{
		Name:  "stampede",
		Image: s.Image,
		Args:  podArgs(s.ClientArgs(), s.Files),
	}
	var volumes []corev1.Volume
	if !s.Init && s.ResultsURLSecret == "" {
		container.VolumeMounts = []corev1.VolumeMount{{Name: "results", MountPath: ResultsDir}}
		volumes = []corev1.Volume{{Name: "results", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: s.Claim()}}}}
	}
	if len(s.Files) > 0 {
		text, binary := configMapData(s.Files)
		objs = append(objs, &corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: meta(s.Name + "-files"),
			Data:       text,
			BinaryData: binary,
		})
		container.VolumeMounts = append(container.VolumeMounts, corev1.VolumeMount{Name: "files", MountPath: ScriptsDir, ReadOnly: true})
		volumes = append(volumes, corev1.Volume{Name: "files", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: s.Name + "-files"}}}})
	}
	if s.ResultsURLSecret != "" {
		container.Env = append(container.Env, corev1.EnvVar{Name: "STAMPEDE_RESULTS_URL", ValueFrom: &corev1.EnvVarSource{
			SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: s.ResultsURLSecret}, Key: "url"}}})
	}
	if s.PasswordSecret != "" {
		container.Env = append(container.Env, corev1.EnvVar{Name: "PGPASSWORD", ValueFrom: &corev1.EnvVarSource{
			SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: s.PasswordSecret}, Key: "password"}}})
	}
	if s.CPU != "" || s.Memory != "" {
		rl := corev1.ResourceList{}
		if s.CPU != "" {
			rl[corev1.ResourceCPU] = resource.MustParse(s.CPU)
		}
		if s.Memory != "" {
			rl[corev1.ResourceMemory] = resource.MustParse(s.Memory)
		}
		container.Resources = corev1.ResourceRequirements{Requests: rl, Limits: rl}
	}
	job := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: meta(s.Name),
		Spec: batchv1.JobSpec{
			Completions:    &n,
			Parallelism:    &n, // every client at once: they start together
			CompletionMode: &indexed,
			// A client that fails is not run again: a second attempt
			// would start after the others and measure something else
			// (a load's share would find its rows half in: start a
			// split load over with cleanup).
			BackoffLimit: &noRetry,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot: &nonRoot, RunAsUser: &user, RunAsGroup: &user, FSGroup: &user,
					},
					Containers: []corev1.Container{container},
					Volumes:    volumes,
					// One client per node where the cluster has the
					// nodes: clients sharing a node share its CPUs.
					TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
						MaxSkew: 1, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: corev1.ScheduleAnyway,
						LabelSelector: &metav1.LabelSelector{MatchLabels: labels},
					}},
				},
			},
		},
	}
	return append(objs, job), nil
}

// Manifest returns the objects as YAML documents separated by ---.
func (s Spec) Manifest() ([]byte, error) {
	objs, err := s.Objects()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	for i, o := range objs {
		y, err := yaml.Marshal(o)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(y)
	}
	return b.Bytes(), nil
}
