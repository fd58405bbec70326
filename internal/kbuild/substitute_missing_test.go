package kbuild

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// A substituteFrom source known to be absent (Options.Missing) is met as kustomize-controller's
// LoadVariables meets a source that is not found: not optional, every resource it substitutes
// fails with the controller's words and why it is absent (one opted out of substitution does
// not read it, so a build of only such resources succeeds); optional, it defines nothing, even
// when ConfigMaps still holds its data.
func TestSubstituteMissingSource(t *testing.T) {
	r := gittest.New(t, map[string]string{
		"app/kustomization.yaml":      "resources:\n- cm.yaml\n",
		"app/cm.yaml":                 "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"app-${SUFFIX:=plain}\"\n  namespace: media\n",
		"optedout/kustomization.yaml": "resources:\n- cm.yaml\n",
		"optedout/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"app-${SUFFIX:=plain}\"\n  namespace: media\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\n",
	})
	vars := map[string]map[string]string{"flux-system/vars": {"SUFFIX": "x"}}
	missing := map[string]string{"ConfigMap/flux-system/vars": "the change prunes it"}
	for _, tc := range []struct {
		name, path, ref string
		opts            Options
		want            []string
		wantErr         string
	}{
		{"present", "app", "", Options{ConfigMaps: vars}, []string{"media_app-x__ConfigMap"}, ""},
		{"missing", "app", "", Options{ConfigMaps: vars, Missing: missing}, nil,
			`post build failed for 'ConfigMap.v1.[noGrp]/app-${SUFFIX:=plain}': substitute from 'ConfigMap/vars' error: configmaps "vars" not found: the change prunes it`},
		{"missing, every resource opted out", "optedout", "", Options{Missing: missing}, []string{"media_app-${SUFFIX:=plain}__ConfigMap"}, ""},
		{"missing and optional", "app", "      optional: true\n", Options{ConfigMaps: vars, Missing: missing}, []string{"media_app-plain__ConfigMap"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ks := fluxKS(t, ksYAML(tc.path, "  postBuild:\n    substitute:\n      CLUSTER: main\n    substituteFrom:\n    - kind: ConfigMap\n      name: vars\n"+tc.ref))
			res := Build(context.Background(), r.Dir, ks, tc.opts)
			if tc.wantErr != "" {
				if res.Err == nil || !strings.Contains(res.Err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", res.Err, tc.wantErr)
				}
				return
			}
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if got := ids(res.Objects); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("objects = %v, want %v", got, tc.want)
			}
		})
	}
}
