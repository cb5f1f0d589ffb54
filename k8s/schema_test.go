package k8s

// Kubernetes' own OpenAPI schema judges what gen k8s writes: the files
// Kubernetes publishes for core/v1 and batch/v1 (testdata/schema, with
// their provenance in its README), with the enums that a cluster serves
// (OpenAPIEnums, on by default since 1.24) and that the published snapshot
// leaves out, taken from Kubernetes' generated definitions (enums.json).
//
// The schema stays out of the binary (no gen k8s --validate): every value a
// user gives gen k8s passes Spec.Validate, which judges names, quantities
// and the image where the schema does not, and the rest of the manifest is
// fixed by code that these tests run with each flag; a check at run time
// could not fail.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// schemaDir holds the vendored schema files.
var schemaDir = filepath.Join("testdata", "schema")

// schemaFiles are Kubernetes' published OpenAPI v3 documents, each one
// self-contained (its components hold every schema its kinds reference).
var schemaFiles = []string{"api__v1_openapi.json", "apis__batch__v1_openapi.json"}

// enumsFile holds the enums the published documents leave out.
const enumsFile = "enums.json"

// gvk names a kind as a manifest does: apiVersion and kind.
type gvk struct{ apiVersion, kind string }

var (
	schemaOnce sync.Once
	schemas    map[gvk]*jsonschema.Schema
	schemaErr  error
)

// kindSchemas compiles, once, the schema of every kind the vendored
// documents define (x-kubernetes-group-version-kind), enums added.
func kindSchemas(t testing.TB) map[gvk]*jsonschema.Schema {
	t.Helper()
	schemaOnce.Do(func() { schemas, schemaErr = compileSchemas() })
	if schemaErr != nil {
		t.Fatal(schemaErr)
	}
	return schemas
}

func compileSchemas() (map[gvk]*jsonschema.Schema, error) {
	var enums map[string]map[string][]string
	b, err := os.ReadFile(filepath.Join(schemaDir, enumsFile))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &enums); err != nil {
		return nil, fmt.Errorf("%s: %v", enumsFile, err)
	}
	applied := map[string]bool{}
	c := jsonschema.NewCompiler()
	// OpenAPI 3.0's schema object is JSON Schema draft 4/5 with formats of
	// its own: int32 and int64 are asserted as the ranges they name.
	c.DefaultDraft(jsonschema.Draft4)
	c.AssertFormat()
	c.RegisterFormat(&jsonschema.Format{Name: "int32", Validate: intRange(32)})
	c.RegisterFormat(&jsonschema.Format{Name: "int64", Validate: intRange(64)})
	locs := map[gvk]string{}
	for _, f := range schemaFiles {
		b, err := os.ReadFile(filepath.Join(schemaDir, f))
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		comps, _ := doc.(map[string]any)["components"].(map[string]any)["schemas"].(map[string]any)
		if len(comps) == 0 {
			return nil, fmt.Errorf("%s has no components.schemas", f)
		}
		for model, props := range enums {
			if comps[model] == nil {
				continue
			}
			for prop, values := range props {
				p, err := enumTarget(comps, model, prop)
				if err != nil {
					return nil, fmt.Errorf("%s: %v", f, err)
				}
				var vs []any
				for _, v := range values {
					vs = append(vs, v)
				}
				p["enum"] = vs
				applied[model+"."+prop] = true
			}
		}
		url := "https://kubernetes.invalid/openapi/v3/" + f
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		for model, s := range comps {
			kinds, _ := s.(map[string]any)["x-kubernetes-group-version-kind"].([]any)
			for _, k := range kinds {
				k := k.(map[string]any)
				api := k["version"].(string)
				if g := k["group"].(string); g != "" {
					api = g + "/" + api
				}
				locs[gvk{api, k["kind"].(string)}] = url + "#/components/schemas/" + model
			}
		}
	}
	for model, props := range enums {
		for prop := range props {
			if !applied[model+"."+prop] {
				return nil, fmt.Errorf("%s: %s.%s is in none of the schema files", enumsFile, model, prop)
			}
		}
	}
	out := map[gvk]*jsonschema.Schema{}
	for k, loc := range locs {
		// Only the kinds the manifests may hold are compiled: each
		// compiles its whole tree of references.
		if k != (gvk{"batch/v1", "Job"}) && k != (gvk{"v1", "PersistentVolumeClaim"}) && k != (gvk{"v1", "ConfigMap"}) {
			continue
		}
		s, err := c.Compile(loc)
		if err != nil {
			return nil, err
		}
		out[k] = s
	}
	if len(out) != 3 {
		return nil, fmt.Errorf("the schema files define %d of the kinds Job (batch/v1), PersistentVolumeClaim and ConfigMap (v1)", len(out))
	}
	return out, nil
}

// enumTarget returns the schema of model's property prop (prop[] for the
// property's items), which must be a string's.
func enumTarget(comps map[string]any, model, prop string) (map[string]any, error) {
	name, items := strings.CutSuffix(prop, "[]")
	p, _ := comps[model].(map[string]any)["properties"].(map[string]any)[name].(map[string]any)
	if items && p != nil {
		p, _ = p["items"].(map[string]any)
	}
	if p == nil || p["type"] != "string" {
		return nil, fmt.Errorf("%s.%s is not a string property of the schema", model, prop)
	}
	return p, nil
}

// intRange asserts OpenAPI's intN format: an integer of N bits.
func intRange(bits uint) func(any) error {
	hi := new(big.Int).Lsh(big.NewInt(1), bits-1)
	lo := new(big.Int).Neg(hi)
	return func(v any) error {
		n, ok := v.(json.Number)
		if !ok {
			return nil // formats judge only their type
		}
		i, ok := new(big.Int).SetString(n.String(), 10)
		if !ok {
			return nil // not an integer: "type" judges it
		}
		if i.Cmp(lo) < 0 || i.Cmp(hi) >= 0 {
			return fmt.Errorf("%s is out of the range of int%d", n, bits)
		}
		return nil
	}
}

// validateManifest validates each document of a manifest against the
// schema of its apiVersion and kind, and returns how many it validated.
func validateManifest(t testing.TB, b []byte) (int, error) {
	t.Helper()
	sch := kindSchemas(t)
	var errs []error
	n := 0
	for i, doc := range bytes.Split(b, []byte("---\n")) {
		j, err := yaml.YAMLToJSON(doc)
		if err != nil {
			errs = append(errs, fmt.Errorf("document %d: %v", i, err))
			continue
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
		if err != nil {
			errs = append(errs, fmt.Errorf("document %d: %v", i, err))
			continue
		}
		obj, _ := v.(map[string]any)
		api, _ := obj["apiVersion"].(string)
		kind, _ := obj["kind"].(string)
		s := sch[gvk{api, kind}]
		if s == nil {
			errs = append(errs, fmt.Errorf("document %d: no schema for apiVersion %q kind %q", i, api, kind))
			continue
		}
		if err := s.Validate(v); err != nil {
			errs = append(errs, fmt.Errorf("document %d (%s): %v", i, kind, err))
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// TestManifestsMatchSchema: every manifest gen k8s writes (each of its
// flags, alone and together) is valid against Kubernetes' schema.
func TestManifestsMatchSchema(t *testing.T) {
	base := Spec{Name: "x", Image: "i", Clients: 2, Args: []string{"run", "ycsb", "postgresql://bench@db/ycsb"}}
	for _, tc := range []struct {
		name string
		edit func(*Spec)
		docs int
	}{
		{"defaults", func(s *Spec) {}, 2},
		{"one client", func(s *Spec) { s.Clients = 1 }, 2},
		{"10000 clients", func(s *Spec) { s.Clients = 10000 }, 2},
		{"namespace", func(s *Spec) { s.Namespace = "bench" }, 2},
		{"start at", func(s *Spec) { s.StartAt = "2030-01-02T03:04:05Z" }, 2},
		{"password secret", func(s *Spec) { s.PasswordSecret = "bench-password" }, 2},
		{"results claim", func(s *Spec) { s.ResultsClaim = "shared-results" }, 1},
		{"results store secret", func(s *Spec) { s.ResultsURLSecret = "results-url"; s.PasswordSecret = "pw" }, 1},
		{"results size", func(s *Spec) { s.ResultsSize = "5Gi" }, 2},
		{"cpu", func(s *Spec) { s.CPU = "500m" }, 2},
		{"memory", func(s *Spec) { s.Memory = "2Gi" }, 2},
		{"every flag", func(s *Spec) {
			*s = Spec{Name: "ycsb-a", Namespace: "bench", Image: "registry.example.com/stampede:0.1", Clients: 8,
				Args:           []string{"run", "ycsb", "--workload", "a", "--max-rate", "80000", "--duration", "10m", "postgresql://bench@pg-lb:5432/ycsb"},
				StartAt:        "next:5m",
				PasswordSecret: "bench-password", ResultsSize: "5Gi", CPU: "2", Memory: "2Gi"}
		}, 2},
		{"init", func(s *Spec) {
			s.Init, s.Args = true, []string{"init", "ycsb", "-p", "recordcount=100000000", "postgresql://bench@db/ycsb"}
		}, 1},
		{"init, every flag", func(s *Spec) {
			s.Init, s.Namespace, s.PasswordSecret, s.CPU, s.Memory, s.Clients = true, "bench", "pw", "2", "1Gi", 16
			s.Args = []string{"init", "tpcc", "--warehouses", "1000", "postgresql://bench@db/tpcc"}
		}, 1},
		{"dotted secret names", func(s *Spec) { s.PasswordSecret, s.ResultsURLSecret = "db.pass", "store.url" }, 1},
		{"dotted claim name", func(s *Spec) { s.ResultsClaim = "my.claim" }, 1},
		{"every flag, existing claim", func(s *Spec) {
			s.Namespace, s.PasswordSecret, s.ResultsClaim, s.CPU, s.Memory = "bench", "pw", "shared", "1.5", "512Mi"
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := base
			tc.edit(&s)
			b, err := s.Manifest()
			if err != nil {
				t.Fatal(err)
			}
			n, err := validateManifest(t, b)
			if err != nil {
				t.Fatalf("%v\n%s", err, b)
			}
			if n != tc.docs {
				t.Errorf("%d documents validated, want %d", n, tc.docs)
			}
			decode(t, b)
		})
	}
	golden, err := os.ReadFile(filepath.Join("testdata", "ycsb-a.golden.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := validateManifest(t, golden); err != nil || n != 2 {
		t.Errorf("the golden manifest: %d documents valid: %v", n, err)
	}
}

// edit changes a manifest's document at a path of keys (list indexes as
// numbers): sets a value (adding the last key if need be), or deletes the
// key when del.
type edit struct {
	keys []string
	val  any
	del  bool
}

// set and del make edits at dotted paths.
func set(path string, v any) edit { return edit{keys: strings.Split(path, "."), val: v} }
func del(path string) edit        { return edit{keys: strings.Split(path, "."), del: true} }

func (e edit) apply(doc any) error {
	cur := doc
	for i, k := range e.keys {
		last := i == len(e.keys)-1
		switch c := cur.(type) {
		case map[string]any:
			if _, ok := c[k]; !ok && (e.del || !last) {
				return fmt.Errorf("%q: no %s", e.keys, k)
			}
			if last {
				if e.del {
					delete(c, k)
				} else {
					c[k] = e.val
				}
				return nil
			}
			cur = c[k]
		case []any:
			idx, err := strconv.Atoi(k)
			if err != nil || idx < 0 || idx >= len(c) || e.del && last {
				return fmt.Errorf("%q: no item %s", e.keys, k)
			}
			if last {
				c[idx] = e.val
				return nil
			}
			cur = c[idx]
		default:
			return fmt.Errorf("%q: %s is not in an object or list", e.keys, k)
		}
	}
	return nil
}

// TestSchemaRejectsBrokenManifests breaks a manifest of gen k8s in one
// place at a time and shows what judges each break: Kubernetes' schema
// (required fields, enums, types, formats, kinds), the strict decoding
// into k8s.io/api's types, or, where Kubernetes' schema says nothing, what
// (and why).
func TestSchemaRejectsBrokenManifests(t *testing.T) {
	s := Spec{Name: "ycsb-a", Namespace: "bench", Image: "registry.example.com/stampede:0.1", Clients: 8,
		Args: []string{"run", "ycsb", "postgresql://bench@pg-lb:5432/ycsb"}, PasswordSecret: "bench-password", CPU: "2", Memory: "2Gi"}
	b, err := s.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	docs := bytes.Split(b, []byte("---\n"))
	if len(docs) != 2 {
		t.Fatalf("%d documents", len(docs))
	}
	const (
		pvc = 0
		job = 1
	)
	const pod = "spec.template.spec."
	const ctr = pod + "containers.0."
	for _, tc := range []struct {
		name  string
		doc   int
		edits []edit
		// schema is what the schema's error says, "" when Kubernetes'
		// schema accepts the break (why is said in the name).
		schema string
		// decodeFails: the strict decoding into k8s.io/api's types
		// refuses it too (it turns a YAML scalar into the field's type
		// first, so a label 5 decodes as "5"; an enum it never judges).
		decodeFails bool
	}{
		{"container without a name", job, []edit{del(ctr + "name")}, "at '/spec/template/spec/containers/0': missing property 'name'", false},
		{"pod without containers", job, []edit{del(pod + "containers")}, "at '/spec/template/spec': missing property 'containers'", false},
		{"job without a pod template", job, []edit{del("spec.template")}, "at '/spec': missing property 'template'", false},
		{"volume without a name", job, []edit{del(pod + "volumes.0.name")}, "at '/spec/template/spec/volumes/0': missing property 'name'", false},
		{"env var without a name", job, []edit{del(ctr + "env.0.name")}, "at '/spec/template/spec/containers/0/env/0': missing property 'name'", false},
		{"secret ref without a key", job, []edit{del(ctr + "env.0.valueFrom.secretKeyRef.key")}, "at '/spec/template/spec/containers/0/env/0/valueFrom/secretKeyRef': missing property 'key'", false},
		{"claim volume without a claim name", job, []edit{del(pod + "volumes.0.persistentVolumeClaim.claimName")}, "at '/spec/template/spec/volumes/0/persistentVolumeClaim': missing property 'claimName'", false},
		{"volume mount without a path", job, []edit{del(ctr + "volumeMounts.0.mountPath")}, "at '/spec/template/spec/containers/0/volumeMounts/0': missing property 'mountPath'", false},
		{"spread without a topology key", job, []edit{del(pod + "topologySpreadConstraints.0.topologyKey")}, "at '/spec/template/spec/topologySpreadConstraints/0': missing property 'topologyKey'", false},
		{"restartPolicy: Sometimes", job, []edit{set(pod+"restartPolicy", "Sometimes")}, "restartPolicy': value must be one of 'Always', 'Never', 'OnFailure'", false},
		{"completionMode: Wrong", job, []edit{set("spec.completionMode", "Wrong")}, "completionMode': value must be one of 'Indexed', 'NonIndexed'", false},
		{"whenUnsatisfiable: Maybe", job, []edit{set(pod+"topologySpreadConstraints.0.whenUnsatisfiable", "Maybe")}, "value must be one of 'DoNotSchedule', 'ScheduleAnyway'", false},
		{"imagePullPolicy: Sometimes", job, []edit{set(ctr+"imagePullPolicy", "Sometimes")}, "value must be one of 'Always', 'IfNotPresent', 'Never'", false},
		{"accessModes: [ReadWriteSometimes]", pvc, []edit{set("spec.accessModes.0", "ReadWriteSometimes")}, "value must be one of 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'", false},
		{"parallelism a string", job, []edit{set("spec.parallelism", "eight")}, "at '/spec/parallelism': got string, want integer", true},
		{"backoffLimit a fraction", job, []edit{set("spec.backoffLimit", json.Number("0.5"))}, "at '/spec/backoffLimit': got number, want integer", true},
		{"args a string", job, []edit{set(ctr+"args", "run ycsb")}, "at '/spec/template/spec/containers/0/args': got string, want array", true},
		{"accessModes a string", pvc, []edit{set("spec.accessModes", "ReadWriteMany")}, "at '/spec/accessModes': got string, want array", true},
		{"label value a number", pvc, []edit{{keys: []string{"metadata", "labels", "app.kubernetes.io/name"}, val: json.Number("5")}}, "at '/metadata/labels/app.kubernetes.io~1name': got number, want string", false},
		{"storage request a boolean", pvc, []edit{set("spec.resources.requests.storage", true)}, "oneOf", true},
		{"completions over int32", job, []edit{set("spec.completions", json.Number("2147483648")), set("spec.parallelism", json.Number("2147483648"))}, "at '/spec/completions': 2147483648 is not valid int32: 2147483648 is out of the range of int32", true},
		{"maxSkew a string", job, []edit{set(pod+"topologySpreadConstraints.0.maxSkew", "1")}, "at '/spec/template/spec/topologySpreadConstraints/0/maxSkew': got string, want integer", true},
		{"kind Jobs", job, []edit{set("kind", "Jobs")}, `no schema for apiVersion "batch/v1" kind "Jobs"`, false},
		{"apiVersion batch/v2", job, []edit{set("apiVersion", "batch/v2")}, `no schema for apiVersion "batch/v2" kind "Job"`, false},
		// Kubernetes' schema gives Quantity as a string or number, no
		// pattern: a bad quantity is refused by its parser (the apiserver's
		// decoding, as here).
		{"cpu limit 'two' (Quantity has no pattern in the schema)", job, []edit{set(ctr+"resources.limits.cpu", "two")}, "", true},
		{"storage request '1 GB' (Quantity has no pattern in the schema)", pvc, []edit{set("spec.resources.requests.storage", "1 GB")}, "", true},
		// The schema has no additionalProperties: false; an unknown field is
		// refused by strict decoding (kubectl's --validate=strict, the
		// apiserver's field validation).
		{"unknown field imagePullPolicyy (no additionalProperties: false in the schema)", job, []edit{set(ctr+"imagePullPolicyy", "Always")}, "", true},
		// Kubernetes' schema leaves the image optional ("to allow higher
		// level config management to default or override container
		// images"); the apiserver's Job validation requires it, and gen
		// k8s refuses a missing --image (TestValidate).
		{"container without an image (optional in the schema)", job, []edit{del(ctr + "image")}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, err := yaml.YAMLToJSON(docs[tc.doc])
			if err != nil {
				t.Fatal(err)
			}
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
			if err != nil {
				t.Fatal(err)
			}
			whole, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := validateManifest(t, whole); err != nil {
				t.Fatalf("before the break: %v", err)
			}
			for _, e := range tc.edits {
				if err := e.apply(v); err != nil {
					t.Fatal(err)
				}
			}
			broken, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(broken, whole) {
				t.Fatal("the edit changed nothing")
			}
			_, err = validateManifest(t, broken)
			switch {
			case tc.schema == "" && err != nil:
				t.Errorf("the schema refuses it: %v", err)
			case tc.schema != "" && (err == nil || !strings.Contains(err.Error(), tc.schema)):
				t.Errorf("the schema says %v, want %q\n%s", err, tc.schema, broken)
			}
			var into any = &corev1.PersistentVolumeClaim{}
			if tc.doc == job {
				into = &batchv1.Job{}
			}
			if err := yaml.UnmarshalStrict(broken, into); (err != nil) != tc.decodeFails {
				t.Errorf("strict decoding: %v, want an error: %v", err, tc.decodeFails)
			}
		})
	}
}

// TestSchemaProvenance: each vendored file is the one the README says
// where it came from, byte for byte (its sha256).
func TestSchemaProvenance(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(schemaDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(schemaDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.Name() != "README.md" {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	want := append(append([]string{"LICENSE"}, schemaFiles...), enumsFile)
	sort.Strings(want)
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("%s holds %v, want %v", schemaDir, names, want)
	}
	for _, name := range names {
		sum, err := sha256File(filepath.Join(schemaDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(readme, []byte("`"+name+"`")) || !bytes.Contains(readme, []byte(sum)) {
			t.Errorf("%s/README.md does not give %s with its sha256 %s", schemaDir, name, sum)
		}
	}
}
