package flux

// The Flux object graph. Every object the chain read, whatever its kind, is a vertex; its
// edges are the references its spec and status make to other objects, read by field
// (refs.go): a Kustomization's sourceRef, a HelmRelease's chartRef or generated HelmChart, a
// HelmChart's sourceRef, an ExternalArtifact's generator, a ResourceSet's inventory, the
// Secrets, ServiceAccounts and ConfigMaps each names. A walk from an object that is not Ready
// follows the edges its own condition says it waits on (its reason is one a controller gives
// while a source is not ready, or its message names the object) to the objects that are not
// Ready or do not exist; the root cause is the deepest object reached, which waits on nothing
// else. Kind-agnostic: no kind has a rule of its own beyond which fields hold its references.

import (
	"maps"
	"slices"
	"strings"

	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// gobj is one vertex of the object graph.
type gobj struct {
	kind, namespace, name string
	ready, stalled        *Condition
	refs                  []gref
	// artifact is set when its status holds an artifact: a source its controller wrote no
	// Ready condition for (an ExternalArtifact) is ready with one, as helm-controller's
	// isSourceReady takes it.
	artifact bool
}

// gref is one reference of an object: the object it names and the field that names it.
type gref struct {
	kind, namespace, name string
	field                 string
}

func graphKey(kind, namespace, name string) string { return kind + "/" + namespace + "/" + name }

func (r gref) key() string { return graphKey(r.kind, r.namespace, r.name) }

// notReady reports whether o is not Ready: its Ready condition is not True, or it is Stalled.
func (o *gobj) notReady() bool {
	if o.ready == nil && o.artifact {
		return false
	}
	return o.ready == nil || o.ready.Status != string(metav1.ConditionTrue) ||
		(o.stalled != nil && o.stalled.Status == string(metav1.ConditionTrue))
}

// failed reports whether o failed for a reason of its own: Stalled, or Ready False (not Unknown,
// as while it reconciles, and not missing, as for an object its controller writes no status for).
func (o *gobj) failed() bool {
	if o.stalled != nil && o.stalled.Status == string(metav1.ConditionTrue) {
		return true
	}
	return o.ready != nil && o.ready.Status == string(metav1.ConditionFalse)
}

// sourceUsers maps each object of the graph that another builds from (through a source field:
// sourceRef, chartRef, its generated HelmChart, an ArtifactGenerator's sources) to those that
// build from it, sorted.
func (objs *Objects) sourceUsers() map[string][]string {
	users := map[string][]string{}
	for _, key := range slices.Sorted(maps.Keys(objs.graph)) {
		for _, r := range objs.graph[key].refs {
			if slices.Contains(sourceFields, r.field) && objs.graph[r.key()] != nil && !slices.Contains(users[r.key()], key) {
				users[r.key()] = append(users[r.key()], key)
			}
		}
	}
	return users
}

// own is the condition o gives for itself: Stalled when it is, else Ready.
func (o *gobj) own() *Condition {
	if o.stalled != nil && o.stalled.Status == string(metav1.ConditionTrue) {
		return o.stalled
	}
	return o.ready
}

// sourceWaitReasons are the reasons the controllers give an object that waits for its source
// to have an artifact: kustomize-controller's ArtifactFailed (kustomization_controller.go:223,
// :245, :286), helm-controller's SourceNotReady and ArtifactFailed (helmrelease_controller.go:290,
// :301, :333), source-controller's NoSourceArtifact and SourceUnavailable for a HelmChart
// (helmchart_controller.go:442, :461).
var sourceWaitReasons = []string{meta.ArtifactFailedReason, "SourceNotReady", "NoSourceArtifact", "SourceUnavailable"}

// sourceFields are the fields that name an object's source.
var sourceFields = []string{"spec.sourceRef", "spec.chartRef", "status.helmChart", "spec.sources"}

// dependsOnField names the references a ResourceSet's spec.dependsOn makes.
const dependsOnField = "spec.dependsOn"

// waitsOn reports whether o, not Ready, waits on the object r names: its reason is one of
// sourceWaitReasons and r is its source, its reason is DependencyNotReady and r one of its
// spec.dependsOn, or its message names r.
func (o *gobj) waitsOn(r gref) bool {
	c := o.own()
	if c == nil {
		return false
	}
	if r.field == dependsOnField && c.Reason == meta.DependencyNotReadyReason {
		return true
	}
	if slices.Contains(sourceFields, r.field) && slices.Contains(sourceWaitReasons, c.Reason) {
		return true
	}
	return names(o.ready, r) || names(o.stalled, r)
}

// names reports whether c's message names r: as namespace/name, or its name quoted, each
// ending where a name cannot go on.
func names(c *Condition, r gref) bool {
	if c == nil {
		return false
	}
	for _, form := range []string{r.namespace + "/" + r.name, "'" + r.name + "'", `"` + r.name + `"`} {
		for i := 0; ; {
			at := strings.Index(c.Message[i:], form)
			if at < 0 {
				break
			}
			end := i + at + len(form)
			if end == len(c.Message) || !nameChar(c.Message[end]) {
				return true
			}
			i = end
		}
	}
	return false
}

func nameChar(b byte) bool {
	return b == '-' || b == '.' || (b >= 'a' && b <= 'z') || (b >= '0' && b <= '9')
}

// refState is what the chain knows of a referenced object.
type refState int

const (
	refOK       refState = iota // Ready, or a Secret, ServiceAccount or ConfigMap that exists
	refNotReady                 // read, and not Ready
	refMissing                  // the server says it does not exist
	refUnread                   // it could not be read: whether it exists or is Ready is unknown
	refUnlooked                 // the chain did not look (its kind is not one it reads)
)

// stateOf says what the chain knows of the object r names, and why it could not tell.
func (objs *Objects) stateOf(r gref) (refState, string) {
	key := r.key()
	if o := objs.graph[key]; o != nil {
		if o.notReady() {
			return refNotReady, ""
		}
		return refOK, ""
	}
	if _, leaf := leafKinds[r.kind]; leaf {
		if objs.leaves[key] {
			return refOK, ""
		}
		why, ok := objs.fetched[key]
		switch {
		case !ok:
			return refUnlooked, ""
		case why == "":
			return refMissing, ""
		}
		return refUnread, why
	}
	if _, known := graphResources[r.kind]; !known {
		return refUnlooked, ""
	}
	if objs.unread[r.kind] {
		return refUnread, "listing " + graphResources[r.kind].GroupResource().String() + " failed"
	}
	if why, ok := objs.fetched[key]; ok {
		if why == "" {
			return refMissing, ""
		}
		return refUnread, why
	}
	if objs.namespace == "" || r.namespace == objs.namespace {
		return refMissing, ""
	}
	return refUnread, "it is in namespace " + r.namespace + ", outside the namespace listed (" + objs.namespace + "), and was not read"
}

// link is one end of a walk: the cause reached, why it could not be read (when it could not),
// and the objects between the start and it (graph keys, nearest the start first).
type link struct {
	cause  string
	state  refState
	unread string
	path   []string
}

// deepest walks down from key, an object of the graph, to the causes it waits on. An object
// that waits on none is its own cause; one that is Ready is no cause at all.
func (objs *Objects) deepest(key string) []link {
	return objs.walkDown(key, map[string]bool{})
}

func (objs *Objects) walkDown(key string, seen map[string]bool) []link {
	o := objs.graph[key]
	if o == nil || !o.notReady() || seen[key] {
		return nil
	}
	seen[key] = true
	defer delete(seen, key)
	var out []link
	for _, r := range o.refs {
		if !o.waitsOn(r) {
			continue
		}
		switch st, why := objs.stateOf(r); st {
		case refMissing, refUnread:
			out = append(out, link{cause: r.key(), state: st, unread: why})
		case refNotReady:
			for _, l := range objs.walkDown(r.key(), seen) {
				if l.cause != r.key() {
					l.path = append([]string{r.key()}, l.path...)
				}
				out = append(out, l)
			}
		}
	}
	if len(out) == 0 {
		return []link{{cause: key, state: refNotReady}}
	}
	slices.SortFunc(out, func(a, b link) int { return strings.Compare(a.cause, b.cause) })
	return slices.CompactFunc(out, func(a, b link) bool { return a.cause == b.cause })
}

// addGraph adds a listed or fetched object of kind to the graph.
func (objs *Objects) addGraph(kind string, u *unstructured.Unstructured) {
	if objs.graph == nil {
		objs.graph = map[string]*gobj{}
	}
	o := &gobj{kind: kind, namespace: u.GetNamespace(), name: u.GetName(), refs: refsOf(kind, u)}
	_, o.artifact, _ = unstructured.NestedMap(u.Object, "status", "artifact")
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok {
			continue
		}
		cond := &Condition{Status: str(m, "status"), Reason: str(m, "reason"), Message: str(m, "message")}
		switch str(m, "type") {
		case meta.ReadyCondition:
			o.ready = cond
		case meta.StalledCondition:
			o.stalled = cond
		}
	}
	objs.graph[graphKey(kind, o.namespace, o.name)] = o
}

// str is m[k] when it is a string.
func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}
