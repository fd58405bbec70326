// Package rename renames a product's identifying words consistently, for the metamorphic check
// of the why-terminating corpus (issue #38): a replay whose product is renamed throughout must
// get the same diagnosis, or the diagnosis leans on the product's words rather than on what the
// cluster shows. The package derives the words (tokens) from the API groups and finalizer
// domains a case installs, maps each to a random word of the same length and case, and applies
// the mapping forward to what the case creates and backward to what the tool answers. It knows
// nothing of the control plane: the caller gives it the groups, the vocabulary Kubernetes itself
// serves, and the case's text.
package rename

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
)

// minLetters is the fewest letters a token has: shorter words (aws, gcp, k8s) are too common
// as parts of other words to rename safely.
const minLetters = 4

// StopWords are the generic words of API groups and domains that name no product: TLDs, the
// words of Kubernetes' own groups, and the nouns every operator's group uses.
func StopWords() []string {
	return []string{
		"io", "com", "org", "dev", "net", "co", "uk", "de", "cloud", "info", "tech", "systems",
		"k8s", "x-k8s", "sigs", "kubernetes", "cncf", "kube", "fluxcd",
		"cluster", "clusters", "operator", "operators", "controller", "controllers", "manager",
		"apps", "app", "core", "network", "networking", "storage", "api", "apis", "apiserver",
		"system", "internal", "config", "configuration", "infrastructure", "bootstrap",
		"controlplane", "addons", "addon", "platform", "data", "database", "databases",
		"monitoring", "metrics", "security", "auth", "authentication", "authorization", "policy",
		"policies", "batch", "extensions", "admission", "finalizer", "finalizers", "resources",
		"resource", "management", "group", "groups", "tools", "toolkit", "source", "service",
		"services", "serving", "eventing", "events", "compute", "workload", "workloads",
		"instance", "instances", "backup", "backups", "snapshot", "snapshots", "gateway",
		"gateways", "ingress", "mesh", "release", "releases", "deploy", "deployment", "image",
		"images", "registry", "node", "nodes", "machine", "machines", "scheduling", "scheduler",
		"autoscaling", "certificates", "certificate", "discovery", "coordination", "events",
		"flowcontrol", "rbac", "crds", "stable", "alpha", "beta", "example", "test", "tests",
		"local", "cleanup", "protection", "delete", "deletion", "external", "multicluster",
		"user", "users", "account", "accounts", "role", "roles", "binding", "bindings",
	}
}

// builtinDomain reports whether a domain is one Kubernetes itself serves (or Flux, which the
// tool models on purpose): its tokens are never renamed.
func builtinDomain(d string) bool {
	if !strings.Contains(d, ".") {
		return true // the core group and Kubernetes' own dotless groups (apps, batch, …)
	}
	for _, s := range []string{"k8s.io", "kubernetes.io", "fluxcd.io"} {
		if d == s || strings.HasSuffix(d, "."+s) {
			return true
		}
	}
	return false
}

// Domain is the domain of a finalizer ("agones.dev" of "agones.dev", "db.example.com" of
// "db.example.com/cleanup"), or "" when it has none (a bare word such as "foregroundDeletion").
func Domain(finalizer string) string {
	d, _, _ := strings.Cut(finalizer, "/")
	if !strings.Contains(d, ".") {
		return ""
	}
	return d
}

// Tokens are the product words of domains (API groups, finalizer domains): each domain that
// Kubernetes does not serve, split on "." and "-", lower-cased, without the stop words, the
// words of fewer than four letters, and any word found inside vocabulary (the resource names,
// kinds and verbs Kubernetes serves, the namespaces and names the harness itself uses): renaming
// those would rename Kubernetes' own words. Sorted and without repeats.
func Tokens(domains, vocabulary []string) []string {
	stop := map[string]bool{}
	for _, w := range StopWords() {
		stop[w] = true
	}
	seen := map[string]bool{}
	var out []string
	for _, d := range domains {
		d = strings.ToLower(d)
		if builtinDomain(d) {
			continue
		}
		for _, w := range strings.FieldsFunc(d, func(r rune) bool { return r == '.' || r == '-' }) {
			if seen[w] || stop[w] || !plainWord(w) || letters(w) < minLetters || inside(w, vocabulary) {
				continue
			}
			seen[w] = true
			out = append(out, w)
		}
	}
	sort.Strings(out)
	return out
}

func plainWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func letters(w string) int {
	n := 0
	for i := 0; i < len(w); i++ {
		if w[i] >= 'a' && w[i] <= 'z' {
			n++
		}
	}
	return n
}

func inside(w string, vocabulary []string) bool {
	for _, v := range vocabulary {
		if strings.Contains(strings.ToLower(v), w) {
			return true
		}
	}
	return false
}

// Pair is one token and the word it is renamed to.
type Pair struct{ From, To string }

// Map is a consistent renaming: Forward renames every occurrence of a token, whatever its case,
// to its word in the same case pattern; Reverse undoes it.
type Map struct {
	Pairs []Pair
}

// New maps each token to a random word of the same length (its digits kept in place), drawn
// from seed: the same seed and tokens give the same map. The map keeps how the product's words
// are made of each other, as a real product renamed would: a token that holds a shorter token
// or a stop word (harvesterhci and harvester, iochaos and chaos, kafkacluster and kafka and
// cluster) is renamed to a word that holds the shorter one's new word at the same place, its
// other letters kept (compose). A word is never one that
// occurs in avoid (the text the map will be applied to, so that Reverse finds only what Forward
// wrote), nor a token, nor another token's word.
func New(seed uint64, tokens []string, avoid string) Map {
	rng := rand.New(rand.NewPCG(seed, uint64(len(tokens))))
	avoid = strings.ToLower(avoid)
	byLength := slices.Clone(tokens)
	sort.SliceStable(byLength, func(i, j int) bool { return len(byLength[i]) < len(byLength[j]) })
	used := map[string]bool{}
	for _, tok := range tokens {
		used[tok] = true
	}
	var m Map
	for _, tok := range byLength {
		composed, covered := compose(tok, m.Pairs)
		partial := slices.Contains(covered, true)
		for try := 0; ; try++ {
			b := []byte(composed)
			for i := range b {
				if b[i] >= 'a' && b[i] <= 'z' && ((!covered[i] && !partial) || try >= 100) {
					b[i] = byte('a' + rng.IntN(26))
				}
			}
			w := string(b)
			if used[w] || strings.Contains(avoid, w) || containsAny(w, tokens) {
				continue
			}
			used[w] = true
			m.Pairs = append(m.Pairs, Pair{From: tok, To: w})
			break
		}
	}
	sort.Slice(m.Pairs, func(i, j int) bool { return m.Pairs[i].From < m.Pairs[j].From })
	return m
}

// compose renames the shorter tokens tok holds (pairs so far) and says which of its positions
// they cover; the stop words it holds (cluster of kafkacluster) cover their letters unchanged.
// A token partly covered keeps its other letters (harvesterhci is harvester's new word and
// hci), as a product renamed throughout keeps them: a kind KafkaCluster renamed stays a
// …Cluster, its plural kafkaclusters stays the kind's word and an s.
func compose(tok string, pairs []Pair) (string, []bool) {
	b := []byte(tok)
	covered := make([]bool, len(tok))
	pairs = slices.Clone(pairs)
	for _, w := range StopWords() {
		if len(w) >= minLetters && w != tok && strings.Contains(tok, w) {
			pairs = append(pairs, Pair{From: w, To: w})
		}
	}
	// The longest first: kafkaclusters is kafkacluster's new word and one letter, not kafka's
	// and eight.
	sort.SliceStable(pairs, func(i, j int) bool { return len(pairs[i].From) > len(pairs[j].From) })
	for _, p := range pairs {
		for i := 0; i+len(p.From) <= len(tok); i++ {
			if tok[i:i+len(p.From)] != p.From {
				continue
			}
			free := true
			for j := i; j < i+len(p.From); j++ {
				free = free && !covered[j]
			}
			if !free {
				continue
			}
			for j := 0; j < len(p.From); j++ {
				b[i+j], covered[i+j] = p.To[j], true
			}
		}
	}
	return string(b), covered
}

// Stems are the words of text (split on everything but letters and digits, lower-cased) that
// are a proper prefix of a token, with at least four letters, no stop word and not inside
// vocabulary: the product's name where its group adds to it (harvester of harvesterhci.io, argo
// of argoproj.io), renamed with it so that the ties between them stay.
func Stems(tokens []string, text string, vocabulary []string) []string {
	stop := map[string]bool{}
	for _, w := range StopWords() {
		stop[w] = true
	}
	seen := map[string]bool{}
	for _, t := range tokens {
		seen[t] = true
	}
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < '0' || r > '9')
	}) {
		if seen[w] || stop[w] || letters(w) < minLetters || inside(w, vocabulary) {
			continue
		}
		for _, t := range tokens {
			if len(w) < len(t) && strings.HasPrefix(t, w) {
				seen[w] = true
				out = append(out, w)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

func containsAny(w string, tokens []string) bool {
	for _, t := range tokens {
		if strings.Contains(w, t) {
			return true
		}
	}
	return false
}

// Forward renames every token in s.
func (m Map) Forward(s string) string {
	return replace(s, m.Pairs, false)
}

// Reverse renames every renamed word in s back to its token.
func (m Map) Reverse(s string) string {
	return replace(s, m.Pairs, true)
}

// replace scans s once, at each position replacing the longest matching word (case-insensitive)
// by its counterpart in the case pattern of the match.
func replace(s string, pairs []Pair, back bool) string {
	if len(pairs) == 0 || s == "" {
		return s
	}
	type rule struct{ from, to string }
	rules := make([]rule, 0, len(pairs))
	for _, p := range pairs {
		if back {
			rules = append(rules, rule{p.To, p.From})
		} else {
			rules = append(rules, rule{p.From, p.To})
		}
	}
	sort.SliceStable(rules, func(i, j int) bool { return len(rules[i].from) > len(rules[j].from) })
	var b strings.Builder
	for i := 0; i < len(s); {
		matched := false
		for _, r := range rules {
			if i+len(r.from) <= len(s) && foldEqual(s[i:i+len(r.from)], r.from) {
				b.WriteString(withCase(s[i:i+len(r.from)], r.to))
				i += len(r.from)
				matched = true
				break
			}
		}
		if !matched {
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

// foldEqual compares s with the lower-case ASCII word w, ignoring ASCII case.
func foldEqual(s, w string) bool {
	for i := 0; i < len(w); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[i] {
			return false
		}
	}
	return true
}

// withCase is w (lower case) with the upper-case letters of pattern upper-cased.
func withCase(pattern, w string) string {
	b := []byte(w)
	for i := range b {
		if c := pattern[i]; c >= 'A' && c <= 'Z' && b[i] >= 'a' && b[i] <= 'z' {
			b[i] -= 'a' - 'A'
		}
	}
	return string(b)
}

// keyedMap reports whether the map under field holds data in its keys, not schema: label and
// annotation keys carry product domains ("agones.dev/fleet") and are renamed with the values.
func keyedMap(field string) bool {
	switch field {
	case "labels", "annotations", "matchLabels", "nodeSelector", "selector":
		return true
	}
	return false
}

// Object renames, in place, every string value of a decoded object (YAML or JSON) and the keys
// of its label-like maps (labels, annotations, selectors) and of any key holding a domain
// ("x.example.com/y"). The other keys are schema: Kubernetes' own schema stays, but a custom
// resource of a renamed group (its apiVersion renamed) has every key renamed too, as its
// product's schema would be (redisReplicationName of a RedisReplication).
func (m Map) Object(o map[string]any) {
	api, _ := o["apiVersion"].(string)
	m.walk(o, false, m.Forward(api) != api)
}

func (m Map) walk(v any, renameKeys, allKeys bool) any {
	switch x := v.(type) {
	case string:
		return m.Forward(x)
	case []any:
		for i := range x {
			x[i] = m.walk(x[i], false, allKeys)
		}
		return x
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		for _, k := range keys {
			val := m.walk(x[k], keyedMap(k), allKeys)
			nk := k
			if allKeys || renameKeys || strings.Contains(k, "/") {
				nk = m.Forward(k)
			}
			if nk != k {
				delete(x, k)
			}
			x[nk] = val
		}
		return x
	}
	return v
}
