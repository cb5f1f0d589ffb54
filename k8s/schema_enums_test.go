package k8s

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var updateEnums = flag.Bool("update-enums", false, "rewrite testdata/schema/enums.json from Kubernetes' generated OpenAPI definitions")

// kubernetesModule is the Go module whose published files are vendored in
// testdata/schema, at the version of k8s.io/api in go.mod.
const kubernetesModule = "k8s.io/kubernetes@v1.37.2"

// generatedDefs is the file of kubernetesModule with the OpenAPI
// definitions the apiserver serves, enums included.
const generatedDefs = "pkg/generated/openapi/zz_generated.openapi.go"

func sha256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// modelName is the OpenAPI name of a Go type (what its OpenAPIModelName
// method returns): the import path's domain reversed, then its path, with
// dots: k8s.io/api/core/v1 PodSpec is io.k8s.api.core.v1.PodSpec.
func modelName(importPath, typ string) string {
	domain, rest, _ := strings.Cut(importPath, "/")
	parts := strings.Split(domain, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".") + "." + strings.ReplaceAll(rest, "/", ".") + "." + typ
}

// enumsFromGenerated reads the enums of every definition's properties
// (prop[] for a property's items) from openapi-gen's output: the map in
// GetOpenAPIDefinitions names each definition's function by its type's
// OpenAPIModelName, and each function lists its Properties.
func enumsFromGenerated(src []byte) (map[string]map[string][]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, generatedDefs, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	imports := map[string]string{}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		imports[name] = p
	}
	models := map[string]string{} // function -> model
	funcs := map[string]*ast.FuncDecl{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		funcs[fd.Name.Name] = fd
		if fd.Name.Name != "GetOpenAPIDefinitions" {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			kv, ok := n.(*ast.KeyValueExpr)
			if !ok {
				return true
			}
			key, ok1 := kv.Key.(*ast.CallExpr)
			val, ok2 := kv.Value.(*ast.CallExpr)
			if !ok1 || !ok2 {
				return true
			}
			sel, ok := key.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "OpenAPIModelName" {
				return true
			}
			lit, ok := sel.X.(*ast.CompositeLit)
			if !ok {
				return true
			}
			typ, ok := lit.Type.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, _ := typ.X.(*ast.Ident)
			fn, _ := val.Fun.(*ast.Ident)
			if pkg == nil || fn == nil || imports[pkg.Name] == "" {
				return true
			}
			models[fn.Name] = modelName(imports[pkg.Name], typ.Sel.Name)
			return false
		})
	}
	if len(models) == 0 {
		return nil, fmt.Errorf("no definitions in GetOpenAPIDefinitions")
	}
	out := map[string]map[string][]string{}
	for fn, model := range models {
		fd := funcs[fn]
		if fd == nil {
			return nil, fmt.Errorf("no function %s for %s", fn, model)
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			kv, ok := n.(*ast.KeyValueExpr)
			if !ok || !isIdent(kv.Key, "Properties") {
				return true
			}
			props, ok := kv.Value.(*ast.CompositeLit)
			if !ok {
				return true
			}
			for _, e := range props.Elts {
				p, ok := e.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				lit, ok := p.Key.(*ast.BasicLit)
				if !ok {
					continue
				}
				name, _ := strconv.Unquote(lit.Value)
				propEnums(p.Value, name, func(prop string, values []string) {
					if out[model] == nil {
						out[model] = map[string][]string{}
					}
					out[model][prop] = values
				})
			}
			return false // a nested Properties belongs to its property
		})
	}
	return out, nil
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// propEnums finds the Enum of a property's schema and of its Items.
func propEnums(n ast.Node, prop string, found func(string, []string)) {
	ast.Inspect(n, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok {
			return true
		}
		switch {
		case isIdent(kv.Key, "Properties") || isIdent(kv.Key, "AdditionalProperties"):
			return false
		case isIdent(kv.Key, "Items"):
			if !strings.HasSuffix(prop, "[]") {
				propEnums(kv.Value, prop+"[]", found)
			}
			return false
		case isIdent(kv.Key, "Enum"):
			lit, ok := kv.Value.(*ast.CompositeLit)
			if !ok {
				return false
			}
			var vs []string
			for _, e := range lit.Elts {
				if b, ok := e.(*ast.BasicLit); ok && b.Kind == token.STRING {
					s, _ := strconv.Unquote(b.Value)
					vs = append(vs, s)
				}
			}
			if len(vs) == len(lit.Elts) && len(vs) > 0 {
				found(prop, vs)
			}
			return false
		}
		return true
	})
}

// TestSchemaEnumsFromKubernetes derives enums.json again from Kubernetes'
// generated definitions (kubernetesModule, fetched by the go command) and
// compares: the enums of every definition in the vendored schema files.
// -update-enums rewrites it.
func TestSchemaEnumsFromKubernetes(t *testing.T) {
	out, err := exec.Command("go", "mod", "download", "-json", kubernetesModule).Output()
	if err != nil {
		t.Skipf("go mod download %s failed (%v): enums.json not checked against Kubernetes' definitions; run it where the Go module proxy is reachable", kubernetesModule, err)
	}
	var mod struct{ Dir, Error string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Skipf("go mod download %s: %s %v: enums.json not checked against Kubernetes' definitions", kubernetesModule, mod.Error, err)
	}
	src, err := os.ReadFile(filepath.Join(mod.Dir, generatedDefs))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(src)
	readme, err := os.ReadFile(filepath.Join(schemaDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, []byte(hex.EncodeToString(sum[:]))) {
		t.Errorf("README.md does not give %s's sha256 %x", generatedDefs, sum)
	}
	all, err := enumsFromGenerated(src)
	if err != nil {
		t.Fatal(err)
	}
	// Keep the definitions the vendored files hold.
	inFiles := map[string]bool{}
	for _, f := range schemaFiles {
		b, err := os.ReadFile(filepath.Join(schemaDir, f))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Components struct{ Schemas map[string]json.RawMessage }
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		for m := range doc.Components.Schemas {
			inFiles[m] = true
		}
	}
	for m := range all {
		if !inFiles[m] {
			delete(all, m)
		}
	}
	for _, want := range []string{"io.k8s.api.core.v1.PodSpec.restartPolicy", "io.k8s.api.batch.v1.JobSpec.completionMode",
		"io.k8s.api.core.v1.PersistentVolumeClaimSpec.accessModes[]", "io.k8s.api.core.v1.TopologySpreadConstraint.whenUnsatisfiable"} {
		i := strings.LastIndex(want, ".")
		if all[want[:i]][want[i+1:]] == nil {
			t.Errorf("no enum found for %s: the reading of %s went wrong", want, generatedDefs)
		}
	}
	got, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join(schemaDir, enumsFile)
	if *updateEnums {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if have, err := os.ReadFile(path); err != nil || !bytes.Equal(have, got) {
		t.Errorf("%s is not what %s of %s gives (%v): run go test ./k8s -run TestSchemaEnumsFromKubernetes -update-enums", path, generatedDefs, kubernetesModule, err)
	}
}
