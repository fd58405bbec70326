package kbuild

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/fluxcd/pkg/envsubst"
	"github.com/fluxcd/pkg/envsubst/parse"
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
// When every variable's value is known (each substituteFrom ConfigMap is in
// Options.ConfigMaps and no Secret is referenced), it calls the controller's own
// kustomize.SubstituteVariables, strict, with the variables the controller would load merged
// under postBuild.substitute: the same code and the same result.
//
// Otherwise it substitutes with the same envsubst and keeps the values it cannot know as
// ${NAME}: the keys of a referenced Secret (Options.SecretKeys), and, when a source is
// not known at all, every variable it has no value for that is referenced without a default.
// A reference with a default (`${NAME:=default}`, `${NAME:-${OTHER}}`) to a variable no source
// read defines takes its default, as envsubst resolves it. When every source is known, a
// variable none defines is an error unless it has a default, exactly as in strict mode.
type substituter struct {
	enabled bool
	always  bool
	// complete: every source's variable names are known. known: and all their values too.
	complete, known bool
	vars            map[string]string
	secret          map[string]bool
	// missing is the error of the first source that is not optional and known to be absent
	// (Options.Missing): the controller fails every resource it substitutes with it.
	missing error
	// merged is the Kustomization with the loaded variables moved into postBuild.substitute.
	merged unstructured.Unstructured
}

func newSubstituter(obj *unstructured.Unstructured, opts Options) (*substituter, error) {
	pb, found, _ := unstructured.NestedFieldNoCopy(obj.Object, "spec", "postBuild")
	s := &substituter{enabled: found && pb != nil, complete: true, known: true, vars: map[string]string{}, secret: map[string]bool{}}
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
		key := obj.GetNamespace() + "/" + ref.Name
		if why, gone := opts.Missing[ref.Kind+"/"+key]; gone {
			if ref.Optional {
				continue // the controller skips an optional source it does not find
			}
			// The controller's own words (fluxcd/pkg/kustomize LoadVariables), then why.
			s.missing = cmp.Or(s.missing, fmt.Errorf("substitute from '%s/%s' error: %ss %q not found: %s", ref.Kind, ref.Name, strings.ToLower(ref.Kind), ref.Name, why))
			continue
		}
		switch data, ok := opts.ConfigMaps[key]; {
		case ref.Kind == "ConfigMap" && ok:
			for k, v := range data {
				s.vars[k] = strings.ReplaceAll(v, "\n", "")
				delete(s.secret, k)
			}
		case ref.Kind == "Secret" && opts.SecretKeys[key] != nil:
			// Its values are never read: its keys stay ${NAME}.
			s.known = false
			for _, k := range opts.SecretKeys[key] {
				s.secret[k] = true
				delete(s.vars, k)
			}
		default:
			// Not given: it may exist in the cluster with any variables.
			s.known, s.complete = false, false
		}
	}
	inline, _, err := unstructured.NestedStringMap(obj.Object, "spec", "postBuild", "substitute")
	if err != nil {
		return nil, fmt.Errorf("spec.postBuild.substitute: %w", err)
	}
	for k, v := range inline {
		s.vars[k] = strings.ReplaceAll(v, "\n", "")
		delete(s.secret, k)
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

// run substitutes r in place and adds to unresolved the variables its identity still needs,
// and to defaulted those its identity took the default of while a source not read could
// define them.
func (s *substituter) run(ctx context.Context, r *resource.Resource, unresolved, defaulted map[string]bool) error {
	if !s.enabled || r.GetLabels()[substituteKey] == kustomize.DisabledValue || r.GetAnnotations()[substituteKey] == kustomize.DisabledValue {
		return nil
	}
	if s.missing != nil {
		// LoadVariables runs for each resource that is not opted out, before any variable.
		return s.missing
	}
	if s.known && !s.selfStanding() {
		// The controller's code path; the dry run only skips reading the cluster, whose
		// variables are already in merged.
		if _, err := kustomize.SubstituteVariables(ctx, nil, s.merged, r,
			kustomize.SubstituteWithDryRun(true),
			kustomize.SubstituteWithStrict(true),
			kustomize.SubstituteWithAlways(s.always)); err != nil {
			return err
		}
	} else {
		identity := r.GetName() + " " + r.GetNamespace()
		if err := s.partial(r); err != nil {
			return err
		}
		left, bare := r.GetName()+" "+r.GetNamespace(), bareReferences(identity)
		for _, m := range varRef.FindAllStringSubmatch(identity, -1) {
			if _, known := s.vars[m[1]]; !known && !s.complete && !s.secret[m[1]] && !bare[m[1]] && !strings.Contains(left, "${"+m[1]) {
				defaulted[m[1]] = true
			}
		}
	}
	for _, v := range []string{r.GetName(), r.GetNamespace()} {
		for _, m := range varRef.FindAllStringSubmatch(v, -1) {
			unresolved[m[1]] = true
		}
	}
	return nil
}

// IsVarName reports whether name is one kustomize-controller accepts for a post-build
// variable; a reference to any other (`${1}`) can never be defined.
func IsVarName(name string) bool { return varName.MatchString(name) }

// selfStanding reports whether s.vars holds a reference that no source can define standing for
// itself: a name the controller refuses as a variable (`${1}`, a regular expression's group in a
// config file), which strict substitution found undefined and the caller set to its own
// literal ${NAME} to keep building. The controller's code refuses such a name among the
// variables, so those builds substitute with the same envsubst here (partial).
func (s *substituter) selfStanding() bool {
	for k, v := range s.vars {
		if !varName.MatchString(k) && v == "${"+k+"}" {
			return true
		}
	}
	return false
}

// partial substitutes the known variables and leaves the unknowable ones as ${NAME}.
func (s *substituter) partial(r *resource.Resource) error {
	for _, names := range []map[string]bool{keysOf(s.vars), s.secret} {
		for v := range names {
			if !varName.MatchString(v) && !(s.vars[v] == "${"+v+"}" && !s.secret[v]) {
				return fmt.Errorf("'%s' var name is invalid, must match '%s'", v, varName)
			}
		}
	}
	data, err := r.AsYAML()
	if err != nil {
		return err
	}
	bare := bareReferences(string(data))
	out, err := envsubst.Eval(string(data), func(name string) (string, bool) {
		if v, ok := s.vars[name]; ok {
			return v, true
		}
		if s.secret[name] || (!s.complete && bare[name]) {
			return "${" + name + "}", true
		}
		// No source read defines it: a reference with a default takes the default, as
		// envsubst does for an unset variable; strict, a bare one is an error.
		return "", false
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

// bareReferences are the variables text references without a default (`${NAME}`, or with an
// operator that reads the value, `${NAME,,}`): when a source that is not read (a Secret, a
// ConfigMap not given) could define one, its value is unknowable, so it stays ${NAME}. A
// variable referenced only as `${NAME:=default}`, `${NAME:-default}`, `${NAME=default}` or
// `${NAME-default}` takes its default when no source read defines it, as fluxcd/pkg/envsubst
// resolves it for an unset variable. Text that does not parse has none: Eval reports the error.
func bareReferences(text string) map[string]bool {
	out := map[string]bool{}
	tree, err := parse.Parse(text)
	if err != nil {
		return out
	}
	var walk func(parse.Node)
	walk = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			for _, c := range n.Nodes {
				walk(c)
			}
		case *parse.FuncNode:
			switch n.Name {
			case "-", "=", ":-", ":=":
			default:
				out[n.Param] = true
			}
			for _, a := range n.Args {
				walk(a)
			}
		}
	}
	walk(tree.Root)
	return out
}

func keysOf(m map[string]string) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// SubstitutionSources collects what postBuild.substituteFrom can read offline from built
// objects, by "namespace/name": the data of each ConfigMap, and the key names of each Secret
// (data and stringData). A Secret's values are never read, so SOPS-encrypted ones work too.
func SubstitutionSources(objs []*unstructured.Unstructured) (configMaps map[string]map[string]string, secretKeys map[string][]string) {
	configMaps, secretKeys = map[string]map[string]string{}, map[string][]string{}
	for _, o := range objs {
		if o.GroupVersionKind().Group != "" {
			continue
		}
		key := o.GetNamespace() + "/" + o.GetName()
		switch o.GetKind() {
		case "ConfigMap":
			data, _, _ := unstructured.NestedStringMap(o.Object, "data")
			if data == nil {
				data = map[string]string{}
			}
			configMaps[key] = data
		case "Secret":
			names := map[string]bool{}
			for _, field := range []string{"data", "stringData"} {
				m, _, _ := unstructured.NestedMap(o.Object, field)
				for k := range m {
					names[k] = true
				}
			}
			secretKeys[key] = slices.Sorted(maps.Keys(names))
			if secretKeys[key] == nil {
				secretKeys[key] = []string{}
			}
		}
	}
	return configMaps, secretKeys
}
