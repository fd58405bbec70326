package rename

import (
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func TestTokens(t *testing.T) {
	vocab := []string{"pods", "secrets", "serviceaccounts", "Deployment", "update", "default", "kube-system"}
	cases := []struct {
		name    string
		domains []string
		want    []string
	}{
		{"product group", []string{"agones.dev", "autoscaling.agones.dev", "multicluster.agones.dev"}, []string{"agones"}},
		{"split on dots and dashes", []string{"iochaos.chaos-mesh.org"}, []string{"chaos", "iochaos"}},
		{"kubernetes groups stay", []string{"gateway.networking.k8s.io", "apps", "storage.k8s.io", "kubernetes.io", "node.kubernetes.io"}, nil},
		{"flux stays", []string{"kustomize.toolkit.fluxcd.io", "helm.toolkit.fluxcd.io"}, nil},
		{"short words and stop words stay", []string{"s3.services.k8s.aws", "cluster.x-k8s.io", "infrastructure.cluster.x-k8s.io"}, nil},
		{"words inside Kubernetes' vocabulary stay", []string{"secret.example.com", "pod.example.com"}, nil},
		{"digits kept with enough letters", []string{"metal3.io", "v1.edp.epam.com"}, []string{"epam", "metal3"}},
		{"repeats once, sorted", []string{"elasticsearch.k8s.elastic.co", "kibana.k8s.elastic.co"}, []string{"elastic", "elasticsearch", "kibana"}},
		{"finalizer domain", []string{Domain("finalizer.databases.schemahero.io/cleanup"), Domain("foregroundDeletion")}, []string{"schemahero"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Tokens(c.domains, vocab); !slices.Equal(got, c.want) {
				t.Errorf("Tokens(%q) = %q, want %q", c.domains, got, c.want)
			}
		})
	}
}

func TestStopWordsAreLowerCaseWords(t *testing.T) {
	for _, w := range StopWords() {
		if w != strings.ToLower(w) || strings.ContainsAny(w, ". ") {
			t.Errorf("stop word %q: want a lower-case word", w)
		}
	}
}

func TestMapRoundTripAndCase(t *testing.T) {
	tokens := []string{"agones", "elastic", "elasticsearch", "metal3"}
	text := "Agones agones.dev/fleet ELASTIC Elasticsearch elasticsearches.elasticsearch.k8s.elastic.co metal3-dev MongoDB"
	m := New(42, tokens, text)
	if len(m.Pairs) != len(tokens) {
		t.Fatalf("pairs %v, want one per token", m.Pairs)
	}
	for _, p := range m.Pairs {
		if len(p.To) != len(p.From) || p.To == p.From || strings.Contains(text, p.To) {
			t.Errorf("pair %v: want a new word of the same length, absent from the text", p)
		}
	}
	fwd := m.Forward(text)
	for _, tok := range tokens {
		if strings.Contains(strings.ToLower(fwd), tok) {
			t.Errorf("forward %q still holds %q", fwd, tok)
		}
	}
	if back := m.Reverse(fwd); back != text {
		t.Errorf("round trip: %q, want %q", back, text)
	}
	to := map[string]string{}
	for _, p := range m.Pairs {
		to[p.From] = p.To
	}
	// Case kept letter by letter; digits kept in place; the longest token wins.
	words := strings.Fields(fwd)
	if want := strings.ToUpper(to["agones"][:1]) + to["agones"][1:]; words[0] != want {
		t.Errorf("Agones → %q, want %q", words[0], want)
	}
	if want := strings.ToUpper(to["elastic"]); words[2] != want {
		t.Errorf("ELASTIC → %q, want %q", words[2], want)
	}
	if want := strings.ToUpper(to["elasticsearch"][:1]) + to["elasticsearch"][1:]; words[3] != want {
		t.Errorf("Elasticsearch → %q, want %q", words[3], want)
	}
	if !strings.HasSuffix(to["metal3"], "3") {
		t.Errorf("metal3 → %q: want its digit kept", to["metal3"])
	}
	if words[6] != "MongoDB" {
		t.Errorf("a word that is no token changed: %q", words[6])
	}
}

func TestMapDeterministic(t *testing.T) {
	tokens := []string{"agones", "kibana"}
	a, b, c := New(7, tokens, ""), New(7, tokens, ""), New(8, tokens, "")
	if !reflect.DeepEqual(a, b) {
		t.Errorf("same seed, maps %v and %v", a, b)
	}
	if reflect.DeepEqual(a, c) {
		t.Errorf("seeds 7 and 8 gave the same map %v", a)
	}
}

// TestObjectKeepsNamesValid renames a product's install as the corpus writes it and checks that
// every name stays a DNS label or subdomain, schema keys stay, label keys and values are renamed,
// and the reverse map gives the object back.
func TestObjectKeepsNamesValid(t *testing.T) {
	doc := `
apiVersion: agones.dev/v1
kind: GameServer
metadata:
  name: simple-game-server-5jqjh-q8wrd
  namespace: agones-system
  labels: {agones.dev/fleet: simple-game-server, app.kubernetes.io/part-of: agones}
  annotations: {agones.dev/sdk-version: 1.16.0}
  finalizers: [agones.dev]
spec:
  agonesPaused: true
  template:
    spec:
      containers:
      - name: agones-gameserver-sidecar
        image: gcr.io/agones-images/agones-sdk:1.16.0
`
	orig := map[string]any{}
	if err := yaml.Unmarshal([]byte(doc), &orig); err != nil {
		t.Fatal(err)
	}
	obj := map[string]any{}
	if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
		t.Fatal(err)
	}
	m := New(1, Tokens([]string{"agones.dev"}, nil), doc)
	m.Object(obj)
	out, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(string(out)), "agones") {
		t.Errorf("renamed object still names the product:\n%s", out)
	}
	meta := obj["metadata"].(map[string]any)
	label := regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	subdomain := regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`)
	for _, name := range []string{meta["name"].(string), meta["namespace"].(string)} {
		if !label.MatchString(name) || len(name) > 63 {
			t.Errorf("name %q is no DNS label", name)
		}
	}
	for _, f := range meta["finalizers"].([]any) {
		if !subdomain.MatchString(f.(string)) {
			t.Errorf("finalizer %q is no DNS subdomain", f)
		}
	}
	if _, ok := obj["spec"].(map[string]any)["agonesPaused"]; ok {
		t.Errorf("a schema key of the renamed product's own resource was kept: %v", obj["spec"])
	}
	dep := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "spec": map[string]any{"agonesPaused": true}}
	m.Object(dep)
	if _, ok := dep["spec"].(map[string]any)["agonesPaused"]; !ok {
		t.Errorf("a key of Kubernetes' own schema was renamed: %v", dep["spec"])
	}
	if _, ok := meta["labels"].(map[string]any)["app.kubernetes.io/part-of"]; !ok {
		t.Errorf("a Kubernetes label key was renamed: %v", meta["labels"])
	}
	back := map[string]any{}
	if err := yaml.Unmarshal([]byte(m.Reverse(string(out))), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, orig) {
		t.Errorf("reverse:\n%v\nwant\n%v", back, orig)
	}
}

// TestMapKeepsComposition: a token that holds a shorter one is renamed around the shorter one's
// new word, as a product renamed throughout would be (harvester → X, harvesterhci → Xhci′).
func TestMapKeepsComposition(t *testing.T) {
	m := New(3, []string{"harvesterhci", "harvester", "iochaos", "chaos"}, "")
	to := map[string]string{}
	for _, p := range m.Pairs {
		to[p.From] = p.To
	}
	if to["harvesterhci"] != to["harvester"]+"hci" {
		t.Errorf("harvester → %q, harvesterhci → %q: want the second to be the first and hci", to["harvester"], to["harvesterhci"])
	}
	if !strings.HasSuffix(to["iochaos"], to["chaos"]) {
		t.Errorf("chaos → %q, iochaos → %q: want the second to end with the first", to["chaos"], to["iochaos"])
	}
	// Nested: a plural is its kind's word and one letter, as the CRD's names are.
	n := New(5, []string{"kafka", "kafkacluster", "kafkaclusters"}, "")
	nt := map[string]string{}
	for _, p := range n.Pairs {
		nt[p.From] = p.To
	}
	if nt["kafkaclusters"] != nt["kafkacluster"]+"s" || nt["kafkacluster"] != nt["kafka"]+"cluster" {
		t.Errorf("kafka → %q, kafkacluster → %q, kafkaclusters → %q: want the stop word cluster and the plural's s kept", nt["kafka"], nt["kafkacluster"], nt["kafkaclusters"])
	}
	text := "harvester harvesterhci.io iochaos.chaos-mesh.org"
	if back := m.Reverse(m.Forward(text)); back != text {
		t.Errorf("round trip: %q, want %q", back, text)
	}
}

func TestStems(t *testing.T) {
	tokens := []string{"harvesterhci", "argoproj", "openshift"}
	text := "image: rancher/harvester:v1.1.2 name: argo-server app: open, harvesterhci.io/creator: harvester, pod: podsx"
	got := Stems(tokens, text, []string{"pods", "openapi"})
	if want := []string{"argo", "harvester"}; !slices.Equal(got, want) {
		t.Errorf("Stems = %q, want %q (a stem inside Kubernetes' vocabulary or a token itself is none)", got, want)
	}
}
