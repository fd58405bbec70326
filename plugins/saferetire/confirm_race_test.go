package saferetire_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// racingProxy is a reverse proxy on 127.0.0.1 in front of the test API server. Just before it
// forwards the first DELETE of a claim in ns, it runs race (an edit through the direct client,
// landing between the command's last re-read and its DELETE); it records every DELETE path it
// forwards. It returns a kubeconfig whose context reaches the API server through it.
func racingProxy(t *testing.T, ns string, race func(claim string)) (kubeconfig string, deletes func() []string) {
	t.Helper()
	upstream, err := url.Parse(env.RESTConfig.Host)
	if err != nil {
		t.Fatal(err)
	}
	transport, err := rest.TransportFor(env.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(upstream)
	proxy.Transport = transport
	var (
		mu   sync.Mutex
		seen []string
		once sync.Once
	)
	prefix := "/api/v1/namespaces/" + ns + "/persistentvolumeclaims/"
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			mu.Lock()
			seen = append(seen, r.URL.Path)
			mu.Unlock()
			if name, ok := strings.CutPrefix(r.URL.Path, prefix); ok {
				once.Do(func() { race(name) })
			}
		}
		proxy.ServeHTTP(w, r)
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: handler}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })

	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["proxied"] = &clientcmdapi.Cluster{Server: "http://" + l.Addr().String()}
	cfg.AuthInfos["proxied"] = &clientcmdapi.AuthInfo{}
	cfg.Contexts["proxied"] = &clientcmdapi.Context{Cluster: "proxied", AuthInfo: "proxied"}
	cfg.CurrentContext = "proxied"
	kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, kubeconfig); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	return kubeconfig, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// A confirmed plan deletes what was reviewed, or nothing: an edit that lands between the
// command's last re-read of a claim and its DELETE (driven by a proxy in front of the API
// server) is refused by the API server on the DELETE's resourceVersion precondition. The run
// stops there: the claim is still there, the later step's claim too and no other DELETE was
// sent; the refusal (exit 3) names the claim, the resourceVersion reviewed and now, that its
// labels differ, and the plan's new digest, which a dry run now prints as well.
func TestConfirmRefusesEditRacingDelete(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	ns := namespace(t, "confirmrace")
	liveKS(t, ns, "apps", "./k8s/"+ns)
	optOut := map[string]string{"kustomize.toolkit.fluxcd.io/prune": "disabled"}
	liveClaim(t, ns, "data", optOut, false)
	liveClaim(t, ns, "logs", optOut, false)
	ann := "kustomize.toolkit.fluxcd.io/prune: disabled"
	r := gittest.New(t, map[string]string{"k8s/" + ns + "/claim.yaml": claim(ns, "data", ann) + "---\n" + claim(ns, "logs", ann)})
	base := r.Git("rev-parse", "HEAD")
	r.Write(map[string]string{"k8s/" + ns + "/claim.yaml": "", "k8s/" + ns + "/settings.yaml": configMap(ns, "settings")})

	raced := ""
	kubeconfig, deletes := racingProxy(t, ns, func(name string) {
		raced = name
		patch := []byte(`{"metadata":{"labels":{"edited-during-delete":"yes"}}}`)
		if _, err := kc.Kube.CoreV1().PersistentVolumeClaims(ns).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Errorf("editing claim %s during its DELETE: %v", name, err)
		}
	})
	iv := invocation{env: map[string]string{"XDG_CACHE_HOME": t.TempDir()}}
	conn := []string{"--kubeconfig", kubeconfig, "--context", "proxied"}
	args := append(conn, "--repo", r.Dir, "--base", base, "-n", ns)
	reviewed := iv.reviewedRaw(t, args...)
	if len(reviewed.Plan.Steps) != 2 {
		t.Fatalf("want a plan of two deletes, got %+v", reviewed.Plan)
	}
	before := map[string]string{}
	for _, o := range reviewed.Plan.Objects {
		before[o.Object] = o.ResourceVersion
	}

	out, errOut, code := iv.carryOut(t, reviewed)
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s\n%s", code, out, errOut)
	}
	if raced == "" {
		t.Fatalf("no DELETE of a claim reached the proxy\n%s\n%s", out, errOut)
	}
	other := map[string]string{"data": "logs", "logs": "data"}[raced]
	if got := deletes(); len(got) != 1 {
		t.Errorf("DELETEs sent %v, want only the raced claim %s's", got, raced)
	}
	for _, name := range []string{raced, other} {
		pvc, err := kc.Kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil || pvc.DeletionTimestamp != nil {
			t.Errorf("claim %s deleted (err %v) after the refusal", name, err)
		}
	}
	now, err := kc.Kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, raced, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	object := "PersistentVolumeClaim " + ns + "/" + raced
	again := iv.reviewedRaw(t, args...)
	if again.Digest == reviewed.Digest {
		t.Fatalf("the plan's digest did not change after the edit: %s", again.Digest)
	}
	contains(t, errOut, "error: --confirm refused: the plan is not the one reviewed ("+reviewed.Digest+"): "+
		object+" changed: resourceVersion "+before[object]+" reviewed, now "+now.ResourceVersion+" (labels differ); "+
		"the API server refused the request on its precondition (409 Conflict); nothing more was carried out. "+
		"The plan now has digest "+again.Digest+": review it with ")
	contains(t, out, "refused stage 4 (delete by hand) of PersistentVolumeClaim "+ns+"/"+raced, "verdict: REFUSED (exit 3)",
		"plan digest: "+again.Digest)
	if strings.Contains(out, "done stage") || strings.Contains(out, "carry out exactly this plan") {
		t.Errorf("a step was carried out, or the refusal offers to carry out the new plan unreviewed:\n%s", out)
	}
}
