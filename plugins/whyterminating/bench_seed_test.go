package whyterminating_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/testsupport/testenv"
)

// The benchmark's stuck namespace: benchConfigMaps ConfigMaps and benchCRsPerKind objects of
// each of benchGroups×benchKindsPerGroup CRD kinds (20,300 objects, ~120 listable types with
// the built-in ones). The first object of every type holds benchHold and is itself Terminating,
// so the recursive explainers run once per type, as for an operator uninstalled with its CRs.
const (
	benchNamespace     = "bench-stuck"
	benchHold          = "example.com/hold"
	benchGroups        = 3
	benchKindsPerGroup = 30
	benchConfigMaps    = 5000
	benchCRsPerKind    = 170
	benchCreators      = 32 // parallel creates; the apiserver, not the client, is the limit
)

// benchSeed counts what seedBenchNamespace left in the namespace.
type benchSeed struct{ objects, held int }

// benchObject is one object to create.
type benchObject struct {
	gvr schema.GroupVersionResource
	obj *unstructured.Unstructured
}

// seedBenchNamespace installs the CRDs, fills the namespace in parallel, deletes the held
// objects and then the namespace, which stays Terminating.
func seedBenchNamespace(ctx context.Context, e *testenv.Env) (benchSeed, error) {
	var seed benchSeed
	crds, gvrs := benchCRDs()
	if err := e.ApplyCRDs(ctx, crds...); err != nil {
		return seed, err
	}
	cfg := rest.CopyConfig(e.RESTConfig)
	cfg.QPS, cfg.Burst = 5000, 5000
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return seed, err
	}
	nsGVR := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": benchNamespace}}}
	if _, err := dyn.Resource(nsGVR).Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return seed, err
	}
	cm := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	all := append([]schema.GroupVersionResource{cm}, gvrs...)
	if err := benchCreateAll(ctx, dyn, all); err != nil {
		return seed, err
	}
	seed.objects = benchConfigMaps + len(gvrs)*benchCRsPerKind
	for _, gvr := range all {
		if err := dyn.Resource(gvr).Namespace(benchNamespace).Delete(ctx, benchName(gvr, 0), metav1.DeleteOptions{}); err != nil {
			return seed, err
		}
		seed.held++
	}
	if err := dyn.Resource(nsGVR).Delete(ctx, benchNamespace, metav1.DeleteOptions{}); err != nil {
		return seed, err
	}
	got, err := dyn.Resource(nsGVR).Get(ctx, benchNamespace, metav1.GetOptions{})
	if err != nil {
		return seed, err
	}
	if phase, _, _ := unstructured.NestedString(got.Object, "status", "phase"); phase != "Terminating" {
		return seed, fmt.Errorf("namespace %s is %q after DELETE, want Terminating", benchNamespace, phase)
	}
	return seed, nil
}

// benchCreateAll creates every object of every type with benchCreators parallel requests.
func benchCreateAll(ctx context.Context, dyn dynamic.Interface, gvrs []schema.GroupVersionResource) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan benchObject)
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for range benchCreators {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if _, err := dyn.Resource(j.gvr).Namespace(benchNamespace).Create(ctx, j.obj, metav1.CreateOptions{}); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("create %s %s: %w", j.gvr.Resource, j.obj.GetName(), err)
					}
					mu.Unlock()
					cancel()
				}
			}
		}()
	}
	for _, gvr := range gvrs {
		n := benchCRsPerKind
		if gvr.Group == "" {
			n = benchConfigMaps
		}
		for i := range n {
			select {
			case jobs <- benchObject{gvr, benchObjectFor(gvr, i)}:
			case <-ctx.Done():
			}
		}
	}
	close(jobs)
	wg.Wait()
	return firstErr
}

// benchObjectFor builds the i-th object of a type: a few labels, as Flux applies them, and a
// small body; the first one holds benchHold.
func benchObjectFor(gvr schema.GroupVersionResource, i int) *unstructured.Unstructured {
	meta := map[string]any{
		"name": benchName(gvr, i), "namespace": benchNamespace,
		"labels": map[string]any{"app.kubernetes.io/part-of": "bench", "kustomize.toolkit.fluxcd.io/name": "apps", "kustomize.toolkit.fluxcd.io/namespace": "flux-system"},
	}
	if i == 0 {
		meta["finalizers"] = []any{benchHold}
	}
	if gvr.Group == "" {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": map[string]any{"config.yaml": "replicas: 1\nowner: team-a\n"}}}
	}
	kind := strings.ToUpper(gvr.Resource[:1]) + strings.TrimSuffix(gvr.Resource[1:], "s")
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": gvr.GroupVersion().String(), "kind": kind, "metadata": meta, "spec": map[string]any{"replicas": int64(1), "owner": "team-a"}}}
}

func benchName(gvr schema.GroupVersionResource, i int) string {
	return fmt.Sprintf("%s-%05d", strings.TrimSuffix(gvr.Resource, "s"), i)
}

// benchCRDs returns the namespaced CRDs (kinds Widget00…, in groups g0.bench.example.com…)
// and the resources they serve.
func benchCRDs() ([]*apiextensionsv1.CustomResourceDefinition, []schema.GroupVersionResource) {
	preserve := true
	var crds []*apiextensionsv1.CustomResourceDefinition
	var gvrs []schema.GroupVersionResource
	for g := range benchGroups {
		group := fmt.Sprintf("g%d.bench.example.com", g)
		for k := range benchKindsPerGroup {
			kind := fmt.Sprintf("Widget%02d", k)
			plural := strings.ToLower(kind) + "s"
			crds = append(crds, &apiextensionsv1.CustomResourceDefinition{
				ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group},
				Spec: apiextensionsv1.CustomResourceDefinitionSpec{
					Group: group,
					Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Singular: strings.ToLower(kind), Kind: kind, ListKind: kind + "List"},
					Scope: apiextensionsv1.NamespaceScoped,
					Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
						Name: "v1", Served: true, Storage: true,
						Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &preserve}},
					}},
				},
			})
			gvrs = append(gvrs, schema.GroupVersionResource{Group: group, Version: "v1", Resource: plural})
		}
	}
	return crds, gvrs
}

// benchListAll lists one type in the namespace, metadata only, page by page, and counts.
func benchListAll(ctx context.Context, c *cluster.Clients, r kinds.Resource) (objects, lists int, err error) {
	ri := c.Metadata.Resource(r.GVR()).Namespace(benchNamespace)
	opts := metav1.ListOptions{Limit: 500}
	for {
		l, err := ri.List(ctx, opts)
		lists++
		if err != nil {
			return objects, lists, fmt.Errorf("list %s: %w", r.QualifiedName(), err)
		}
		objects += len(l.Items)
		if l.Continue == "" {
			return objects, lists, nil
		}
		opts.Continue = l.Continue
	}
}

// benchProxy is a reverse proxy to the apiserver that counts the requests passing through it
// by kind (discovery, list, get, other verbs). Its kubeconfig has no credentials: the proxy
// adds the admin's.
type benchProxy struct {
	flags    []string // --kubeconfig, --context and its own --cache-dir, cold at first
	next     http.RoundTripper
	mu       sync.Mutex
	counts   map[string]int
	timeline benchTimeline
	// detail counts the requests by verb, resource and representation (metadata-only or
	// full), for the breakdown of the -A run.
	detail map[string]int
	// log is every request since the last reset, in the order they ended: what the -A run
	// does after its sweep's last LIST is read from it.
	log []benchRequest
}

// benchRequest is one request through the proxy: what it was (as benchDetail names it) and
// when it started and ended.
type benchRequest struct {
	detail     string
	start, end time.Time
}

// benchTimeline marks when a client's requests happened: the first one, the span of the LISTs
// in the benchmark namespace (the sweep), the span of every metadata-only LIST (the sweep of
// -A), and the end of the last one.
type benchTimeline struct{ first, sweepStart, sweepEnd, metaStart, metaEnd, last time.Time }

// RoundTrip forwards a request and records it.
func (p *benchProxy) RoundTrip(r *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := p.next.RoundTrip(r)
	end := time.Now()
	class := benchClassify(r)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts[class]++
	detail := benchDetail(r, class)
	p.detail[detail]++
	p.log = append(p.log, benchRequest{detail: detail, start: start, end: end})
	t := &p.timeline
	if t.first.IsZero() {
		t.first = start
	}
	if class == "list" && strings.Contains(r.URL.Path, "/namespaces/"+benchNamespace+"/") {
		if t.sweepStart.IsZero() {
			t.sweepStart = start
		}
		t.sweepEnd = end
	}
	if class == "list" && strings.Contains(r.Header.Get("Accept"), "as=PartialObjectMetadata") {
		if t.metaStart.IsZero() {
			t.metaStart = start
		}
		t.metaEnd = end
	}
	t.last = end
	return resp, err
}

func startBenchProxy(b *testing.B, e *testenv.Env) (*benchProxy, error) {
	target, err := url.Parse(e.Server)
	if err != nil {
		return nil, err
	}
	rt, err := rest.TransportFor(e.RESTConfig)
	if err != nil {
		return nil, err
	}
	p := &benchProxy{next: rt, counts: map[string]int{}, detail: map[string]int{}}
	srv := httptest.NewServer(&httputil.ReverseProxy{Transport: p, Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target) }})
	b.Cleanup(srv.Close)
	dir := b.TempDir()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[e.Context] = &clientcmdapi.Cluster{Server: srv.URL}
	cfg.AuthInfos[e.Context] = &clientcmdapi.AuthInfo{}
	cfg.Contexts[e.Context] = &clientcmdapi.Context{Cluster: e.Context, AuthInfo: e.Context}
	cfg.CurrentContext = e.Context
	path := filepath.Join(dir, "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return nil, err
	}
	p.flags = []string{"--kubeconfig", path, "--context", e.Context, "--cache-dir", filepath.Join(dir, "cache")}
	return p, nil
}

// reset returns the counts and timeline so far and starts again from zero.
func (p *benchProxy) reset() (map[string]int, benchTimeline) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c, t := p.counts, p.timeline
	p.counts, p.timeline, p.detail, p.log = map[string]int{}, benchTimeline{}, map[string]int{}, nil
	return c, t
}

// resetDetail returns the per-resource breakdown, the timeline and the request log so far and
// starts again from zero.
func (p *benchProxy) resetDetail() (map[string]int, benchTimeline, []benchRequest) {
	p.mu.Lock()
	defer p.mu.Unlock()
	d, t, l := p.detail, p.timeline, p.log
	p.counts, p.timeline, p.detail, p.log = map[string]int{}, benchTimeline{}, map[string]int{}, nil
	return d, t, l
}

// benchDetail names a request by its class, resource (group/resource, namespaced or not) and
// whether it asked for metadata only: `list apps/deployments meta`.
func benchDetail(r *http.Request, class string) string {
	if class == "discovery" {
		return class
	}
	p := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	var group string
	var rest []string
	switch {
	case p[0] == "api" && len(p) > 2:
		group, rest = "core", p[2:]
	case p[0] == "apis" && len(p) > 3:
		group, rest = p[1], p[3:]
	}
	if len(rest) > 2 && rest[0] == "namespaces" {
		rest = rest[2:]
	}
	res := group
	if len(rest) > 0 {
		res += "/" + rest[0]
	}
	if len(rest) > 2 {
		res += "/" + rest[2]
	}
	repr := "full"
	if strings.Contains(r.Header.Get("Accept"), "as=PartialObjectMetadata") {
		repr = "meta"
	}
	return class + " " + res + " " + repr
}

// benchFormatDetail prints a breakdown one line per key, the most frequent first.
func benchFormatDetail(detail map[string]int) string {
	keys := make([]string, 0, len(detail))
	for k := range detail {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if detail[keys[i]] != detail[keys[j]] {
			return detail[keys[i]] > detail[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var s strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&s, "  %5d %s\n", detail[k], k)
	}
	return s.String()
}

// benchClassify names what a request is: discovery (/api, /apis/g/v, /openapi, /version),
// a LIST or GET of a resource, or another verb.
func benchClassify(r *http.Request) string {
	p := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	var rest []string
	switch {
	case p[0] == "api" && len(p) > 2:
		rest = p[2:]
	case p[0] == "apis" && len(p) > 3:
		rest = p[3:]
	}
	switch {
	case len(rest) == 0:
		return "discovery"
	case r.Method != http.MethodGet:
		return strings.ToLower(r.Method)
	case rest[0] == "namespaces" && len(rest) > 2:
		rest = rest[2:]
	}
	if len(rest) == 1 {
		return "list"
	}
	return "get"
}

func benchTotal(counts map[string]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// benchFormat prints counts as `131 (1 discovery, 129 list, 1 get)`.
func benchFormat(counts map[string]int) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
	}
	return fmt.Sprintf("%d (%s)", benchTotal(counts), strings.Join(parts, ", "))
}
