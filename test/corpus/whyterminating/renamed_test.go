package whyterminating_test

import (
	"encoding/json"
	"hash/fnv"
	"os"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kubeforensics/suite/internal/testsupport/rename"
)

// The renamed mode (issue #38's metamorphic check, docs/why-terminating.md "Renamed products"):
// with KF_CORPUS_RENAME=<seed> every replay is built with its product's words renamed (the
// words of its CRDs' groups and its finalizers' domains, each to a random word of the same
// length and case) in everything it creates and in the arguments the case passes, and the
// tool's answer is renamed back before the case's own assertions read it. A case that passes
// plain and fails renamed leans on the product's words.
const (
	renameSeedEnv = "KF_CORPUS_RENAME"
	// renamedMapEnv carries the map of one test from its replay to its diagnosis: set with
	// t.Setenv, so it lives exactly as long as the test.
	renamedMapEnv = "KF_CORPUS_RENAMED_MAP"
)

// renamedIfAsked is r with its product renamed when the renamed mode is on (and the map kept
// for the test's diagnoses), else r unchanged.
func (r replay) renamedIfAsked(t *testing.T) replay {
	t.Helper()
	raw := os.Getenv(renameSeedEnv)
	if raw == "" {
		return r
	}
	seed, err := strconv.ParseUint(raw, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: want a number (the seed): %v", renameSeedEnv, raw, err)
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(t.Name()))
	docs := append(parseDocs(t, r.install), parseDocs(t, r.objects)...)
	var domains []string
	avoid := []string{r.install, r.objects}
	for _, c := range r.crds {
		domains = append(domains, c.group)
		avoid = append(avoid, c.group, c.kind, c.plural)
	}
	for _, d := range docs {
		for _, f := range d.GetFinalizers() {
			domains = append(domains, rename.Domain(f))
		}
	}
	for _, e := range r.events {
		avoid = append(avoid, e.message, e.component)
	}
	vocab, err := kubernetesVocabulary()
	if err != nil {
		t.Fatalf("renamed mode: reading what Kubernetes serves: %v", err)
	}
	text := strings.Join(avoid, "\n")
	tokens := rename.Tokens(domains, vocab)
	// The product's name where its group adds to it (harvester of harvesterhci.io) is renamed
	// with it, so that the ties between them stay.
	tokens = append(tokens, rename.Stems(tokens, text, vocab)...)
	m := rename.New(seed^h.Sum64(), tokens, text)
	enc, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(renamedMapEnv, string(enc))
	t.Logf("renamed (seed %d): %v", seed, m.Pairs)
	return r.renamed(t, m)
}

// renamed is r with m applied to everything it creates, deletes and records.
func (r replay) renamed(t *testing.T, m rename.Map) replay {
	t.Helper()
	out := r
	out.crds = nil
	for _, c := range r.crds {
		c.group, c.kind, c.plural, c.conversion = m.Forward(c.group), m.Forward(c.kind), m.Forward(c.plural), m.Forward(c.conversion)
		c.labels, c.annotations = renamedStrings(m, c.labels), renamedStrings(m, c.annotations)
		out.crds = append(out.crds, c)
	}
	out.install, out.objects = renamedDocs(t, m, r.install), renamedDocs(t, m, r.objects)
	out.deletes, out.unready = renamedList(m, r.deletes), renamedList(m, r.unready)
	out.events = nil
	for _, e := range r.events {
		e.about, e.message, e.component, e.reason = m.Forward(e.about), m.Forward(e.message), m.Forward(e.component), m.Forward(e.reason)
		out.events = append(out.events, e)
	}
	if r.finalizersBy != nil {
		out.finalizersBy = renamedStrings(m, r.finalizersBy)
	}
	return out
}

func renamedStrings(m rename.Map, in map[string]string) map[string]string {
	if in == nil {
		return nil
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		out[m.Forward(k)] = m.Forward(v)
	}
	return out
}

func renamedList(m rename.Map, in []string) []string {
	var out []string
	for _, s := range in {
		out = append(out, m.Forward(s))
	}
	return out
}

// renamedDocs renames each YAML document of s as an object (string values and label-like keys;
// schema keys stay) and writes them back as documents.
func renamedDocs(t *testing.T, m rename.Map, s string) string {
	t.Helper()
	var docs []string
	for _, d := range parseDocs(t, s) {
		m.Object(d.Object)
		b, err := yaml.Marshal(d.Object)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	return strings.Join(docs, "\n---\n")
}

// renamedMap is the map of the test's replay, or none (the identity) when the mode is off.
func renamedMap(t *testing.T) rename.Map {
	t.Helper()
	var m rename.Map
	if raw := os.Getenv(renamedMapEnv); raw != "" {
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			t.Fatalf("%s: %v", renamedMapEnv, err)
		}
	}
	return m
}

// kubernetesVocabulary is what Kubernetes itself serves and the harness itself names: the
// resources and kinds of its own groups, the verbs of RBAC, the namespaces and the node the
// replays use. A product word found inside one of them is not renamed.
func kubernetesVocabulary() ([]string, error) {
	vocab := []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection",
		"escalate", "bind", "impersonate", "approve", "sign", "use", "proxy",
		"default", "kube-system", "kube-public", "kube-node-lease", nodeName, "system:serviceaccount",
		"gc-probe-owner", "gc-probe-dependent", "foregroundDeletion", "orphan"}
	_, lists, err := kc.Kube.Discovery().ServerGroupsAndResources()
	if err != nil {
		return nil, err
	}
	for _, l := range lists {
		group, _, _ := strings.Cut(l.GroupVersion, "/")
		if strings.Contains(l.GroupVersion, ".") && !strings.HasSuffix(group, ".k8s.io") {
			continue // a product's group (a CRD or an aggregated API), not Kubernetes' own
		}
		for _, res := range l.APIResources {
			vocab = append(vocab, strings.Split(res.Name, "/")...)
			vocab = append(vocab, res.Kind, res.SingularName)
			vocab = append(vocab, res.ShortNames...)
		}
	}
	return vocab, nil
}
