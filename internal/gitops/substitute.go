package gitops

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/fluxcd/pkg/envsubst"
	"github.com/fluxcd/pkg/kustomize"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/yaml"
)

// substituteKey is the label or annotation that turns substitution off for one object.
const substituteKey = "kustomize.toolkit.fluxcd.io/substitute"

var (
	// varName is the controller's rule for variable names.
	varName = regexp.MustCompile(`^[_[:alpha:]][_[:alpha:][:digit:]]*$`)
	// varRef finds the variables still referenced in a string after substitution.
	varRef = regexp.MustCompile(`\$\{([_[:alpha:]][_[:alpha:][:digit:]]*)`)
)

// substituter runs spec.postBuild on built resources offline.
//
// When every substituteFrom source is known (each ConfigMap is in BuildOptions.ConfigMaps,
// no Secret is referenced), it calls the controller's own kustomize.SubstituteVariables,
// strict, with the variables the controller would load merged under postBuild.substitute:
// the same code and the same result. Otherwise some variables cannot be known offline, so
// it substitutes the known ones with the same envsubst, leaves the others as ${NAME} instead
// of failing, and records those an object's identity depends on.
type substituter struct {
	enabled  bool
	always   bool
	complete bool
	vars     map[string]string
	// merged is the Kustomization with the loaded variables moved into postBuild.substitute.
	merged unstructured.Unstructured
}

func newSubstituter(obj *unstructured.Unstructured, configMaps map[string]map[string]string) (*substituter, error) {
	pb, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "postBuild")
	s := &substituter{enabled: found && pb != nil, complete: true, vars: map[string]string{}}
	if !s.enabled {
		return s, nil
	}
	strategy, _, _ := unstructured.NestedString(obj.Object, "spec", "postBuild", "substituteStrategy")
	s.always = strategy == "Always"
	refs, _, err := unstructured.NestedSlice(obj.Object, "spec", "postBuild", "substituteFrom")
	if err != nil {
		return nil, fmt.Errorf("spec.postBuild.substituteFrom: %w", err)
	}
	for i, raw := range refs {
		m, ok := raw.(map[string]any)
		var ref kustomize.SubstituteReference
		if !ok || runtime.DefaultUnstructuredConverter.FromUnstructured(m, &ref) != nil {
			return nil, fmt.Errorf("spec.postBuild.substituteFrom[%d] is not a reference", i)
		}
		data, known := configMaps[obj.GetNamespace()+"/"+ref.Name]
		if ref.Kind != "ConfigMap" || !known {
			// A Secret's values are never read; a ConfigMap not given may exist in the cluster.
			s.complete = false
			continue
		}
		for k, v := range data {
			s.vars[k] = strings.ReplaceAll(v, "\n", "")
		}
	}
	inline, _, err := unstructured.NestedStringMap(obj.Object, "spec", "postBuild", "substitute")
	if err != nil {
		return nil, fmt.Errorf("spec.postBuild.substitute: %w", err)
	}
	for k, v := range inline {
		s.vars[k] = strings.ReplaceAll(v, "\n", "")
	}
	s.merged = *obj.DeepCopy()
	unstructured.RemoveNestedField(s.merged.Object, "spec", "postBuild", "substituteFrom")
	if len(s.vars) > 0 {
		if err := unstructured.SetNestedStringMap(s.merged.Object, s.vars, "spec", "postBuild", "substitute"); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// run substitutes r in place and adds to unresolved the variables its identity still needs.
func (s *substituter) run(ctx context.Context, r *resource.Resource, unresolved map[string]bool) error {
	if !s.enabled || r.GetLabels()[substituteKey] == kustomize.DisabledValue || r.GetAnnotations()[substituteKey] == kustomize.DisabledValue {
		return nil
	}
	if s.complete {
		// The controller's code path; the dry run only skips reading the cluster, whose
		// variables are already in merged.
		if _, err := kustomize.SubstituteVariables(ctx, nil, s.merged, r,
			kustomize.SubstituteWithDryRun(true),
			kustomize.SubstituteWithStrict(true),
			kustomize.SubstituteWithAlways(s.always)); err != nil {
			return err
		}
	} else if err := s.partial(r); err != nil {
		return err
	}
	for _, v := range []string{r.GetName(), r.GetNamespace()} {
		for _, m := range varRef.FindAllStringSubmatch(v, -1) {
			unresolved[m[1]] = true
		}
	}
	return nil
}

// partial substitutes the known variables and leaves every other one as ${NAME}.
func (s *substituter) partial(r *resource.Resource) error {
	for v := range s.vars {
		if !varName.MatchString(v) {
			return fmt.Errorf("'%s' var name is invalid, must match '%s'", v, varName)
		}
	}
	data, err := r.AsYAML()
	if err != nil {
		return err
	}
	out, err := envsubst.Eval(string(data), func(name string) (string, bool) {
		if v, ok := s.vars[name]; ok {
			return v, true
		}
		return "${" + name + "}", true
	})
	if err != nil {
		return fmt.Errorf("envsubst error: variable substitution failed: %w", err)
	}
	js, err := yaml.YAMLToJSON([]byte(out))
	if err != nil {
		return fmt.Errorf("envsubst error: YAMLToJSON: %w", err)
	}
	return r.UnmarshalJSON(js)
}
