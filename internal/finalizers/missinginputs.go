package finalizers

import (
	"context"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

var (
	secretResource    = kinds.Resource{Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true}
	configMapResource = kinds.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}
)

// inputKinds are the core kinds a custom resource names as what its controller reads to do its
// work (credentials, configuration), by the field's last word.
var inputKinds = map[string]kinds.Resource{"secret": secretResource, "configmap": configMapResource}

// inputSuffixes may follow the kind's word in such a field (`githubConfigSecret`,
// `passwordSecretKeyRef`, `caConfigMapName`).
var inputSuffixes = map[string]bool{"": true, "ref": true, "name": true, "keyref": true}

// outputWords in a field's path say the controller writes what it names (a connection Secret it
// creates, an export target): its absence is no evidence of anything.
var outputWords = []string{"write", "output", "target", "destination", "export", "publish"}

// workloadWords in a field's path say it is part of a pod the controller creates (a template's
// containers, env, volumes): what that pod reads, its controller's cleanup does not need.
var workloadWords = map[string]bool{"template": true, "containers": true, "initcontainers": true, "env": true, "envfrom": true, "volumes": true}

// inputReferences returns the Secrets and ConfigMaps a custom resource's spec names as inputs
// of its controller's work: a field whose name ends in the kind (`…Secret`, `…SecretRef`,
// `…SecretName`, `…SecretKeyRef`, the same for ConfigMap) and says what it is for (a word before
// the kind: `githubConfigSecret`, `credentialsSecretRef`), or whose value says which key to read
// (`{name, key}`). A bare `secretName` or `secretRef` is as often the Secret the controller
// writes (a certificate's) as one it reads, and is not followed; nor is a field under a pod
// template or one whose path says it is written (`writeConnectionSecretToRef`, `target`).
// Names resolve in the object's namespace, or the reference's own `namespace`.
func inputReferences(spec map[string]any, namespace string) []outRef {
	var out []outRef
	walkSpecFields(spec, func(key, path string, v any, listed bool) bool {
		if listed || underWorkloadOrOutput(path) {
			return false
		}
		res, qualified, ok := inputKind(key)
		if !ok {
			return false
		}
		name, ns, hasKey := "", namespace, false
		switch t := v.(type) {
		case string:
			name = t
		case map[string]any:
			name, _ = t["name"].(string)
			if s, ok := t["namespace"].(string); ok && s != "" {
				ns = s
			}
			_, hasKey = t["key"].(string)
		}
		if (!qualified && !hasKey) || !validName(name) || ns == "" {
			return false
		}
		out = append(out, outRef{path: path, res: res, ns: ns, name: name})
		return true
	})
	sortByPath(out)
	return out
}

// inputKind reads a field's name as naming a Secret or ConfigMap, and whether a word before the
// kind says what it is for.
func inputKind(key string) (kinds.Resource, bool, bool) {
	lower := strings.ToLower(key)
	for word, res := range inputKinds {
		i := strings.LastIndex(lower, word)
		if i < 0 || !inputSuffixes[lower[i+len(word):]] {
			continue
		}
		return res, i > 0, true
	}
	return kinds.Resource{}, false, false
}

func underWorkloadOrOutput(path string) bool {
	lower := strings.ToLower(path)
	for _, w := range outputWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	for _, seg := range strings.Split(lower, ".") {
		if i := strings.Index(seg, "["); i >= 0 {
			seg = seg[:i]
		}
		if workloadWords[seg] {
			return true
		}
	}
	return false
}

// missingInputs resolves the object's input references (inputReferences) with a metadata read
// each (bounded, cached: a Secret's data is never read) and returns the ones that do not
// exist, with the reads that failed as gaps. Only for a custom resource (a core object's Secret
// names are its own business) outside a namespace being deleted (whose Secrets go first: the
// namespace's own explanation says so).
func (x *Explainer) missingInputs(ctx context.Context, o subject, w ownWord) ([]dangling, []report.Gap) {
	type result struct {
		found []dangling
		gaps  []report.Gap
	}
	r, _ := cached(x, "inputs/"+o.ref().String(), func() (result, error) {
		var r result
		if o.res.Group == "" || w.obj == nil {
			return r, nil
		}
		spec, _ := w.obj.Object["spec"].(map[string]any)
		refs := inputReferences(spec, o.obj.GetNamespace())
		for i, ref := range refs {
			if i >= maxDanglingLookups {
				r.gaps = append(r.gaps, boundGap(report.OpGet, o.ref().ID(), fmt.Sprintf("more Secrets and ConfigMaps named by the object's spec than are looked up (bound of %d): %s (%s) and on", maxDanglingLookups, ref.ref().String(), ref.path)))
				break
			}
			if since, read := x.namespaceGoing(ctx, ref.ns, nil); since != nil || !read {
				continue
			}
			obj := ref.ref()
			_, err := cached(x, "exists/"+obj.String(), func() (*metav1.PartialObjectMetadata, error) {
				return x.c.Metadata.Resource(ref.res.GVR()).Namespace(ref.ns).Get(ctx, ref.name, metav1.GetOptions{})
			})
			switch {
			case apierrors.IsNotFound(err):
				r.found = append(r.found, dangling{ref: obj, path: ref.path, restorable: true,
					reason: fmt.Sprintf("%s names %s, which does not exist: the object's controller reads it to do its work (credentials or configuration for what it manages), its cleanup included, so that cleanup never completes", ref.path, obj.String())})
			case err != nil:
				r.gaps = append(r.gaps, getGap(obj.ID(), "reading "+obj.String()+", which the object's "+ref.path+" names", err))
			}
		}
		return r, nil
	})
	return r.found, r.gaps
}

// yieldsToMissingInput reports that the referents being deleted are all owners the spec does
// not name, while an input the object needs is missing: the owner's deletion is what cascaded to
// the object (it is deleted because its owner is), not what holds its finalizer, and the
// missing input is (applyMissingInputs names the owner as context).
func (x *Explainer) yieldsToMissingInput(ctx context.Context, o subject, w ownWord, going []goingReferent) bool {
	if slices.ContainsFunc(going, func(g goingReferent) bool { return !g.ownerOnly }) {
		return false
	}
	found, _ := x.missingInputs(ctx, o, w)
	return len(found) > 0
}

// applyMissingInputs makes blockers of the Secrets and ConfigMaps the object's spec names as
// inputs that do not exist, for every finalizer whose remover runs and that nothing else holds
// yet: a controller that needs credentials or configuration to clean up (to deregister the
// object from the service it was registered with) retries for ever without them. An owner
// being deleted is named beside it as what cascaded to the object.
func (x *Explainer) applyMissingInputs(ctx context.Context, o subject, e *Explanation, w ownWord) {
	if !slices.ContainsFunc(e.Finalizers, removerRuns) {
		return
	}
	found, gaps := x.missingInputs(ctx, o, w)
	if len(found) == 0 {
		return
	}
	var why []string
	for _, g := range x.goingReferents(ctx, o, w) {
		if g.ownerOnly {
			why = append(why, fmt.Sprintf("its owner %s is being deleted too: that deletion is what cascaded to this object, not what holds its finalizer", g.ref.String()))
		}
	}
	found = slices.Clone(found)
	for i := range found {
		found[i].context = why
	}
	for i := range e.Finalizers {
		if f := &e.Finalizers[i]; removerRuns(*f) {
			blockOnMissing(o, f, found, gaps)
		}
	}
	nameLeftovers(e, w.obj)
}
