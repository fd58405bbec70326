package kbuild

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// recorder is an HTTP server on 127.0.0.1 that counts every request and answers each path
// with a small valid file of the kind the field expects.
func recorder(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch {
		case strings.HasSuffix(r.URL.Path, ".env"):
			_, _ = w.Write([]byte("KEY=value\n"))
		case strings.Contains(r.URL.Path, "openapi"):
			_, _ = w.Write([]byte(`{"definitions": {}}`))
		default:
			_, _ = w.Write([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: remote\n"))
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// Every kustomization field that can name a URL, as issue 16 lists them: without
// AllowNetwork none may reach the server, and the tier fails with ErrNeedsNetwork naming the
// URL. The fields are not listed by the gate; the list here is what proves it.
func TestOfflineBuildFetchesNothing(t *testing.T) {
	srv, hits := recorder(t)
	u := srv.URL
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local\n  namespace: apps\n"
	cases := map[string]string{
		"resources":                  "resources:\n- " + u + "/r.yaml\n",
		"patches path":               "resources:\n- cm.yaml\npatches:\n- path: " + u + "/p.yaml\n",
		"patchesStrategicMerge":      "resources:\n- cm.yaml\npatchesStrategicMerge:\n- " + u + "/psm.yaml\n",
		"patchesJson6902":            "resources:\n- cm.yaml\npatchesJson6902:\n- target: {version: v1, kind: ConfigMap, name: local}\n  path: " + u + "/j.yaml\n",
		"generator files":            "configMapGenerator:\n- name: g\n  files:\n  - " + u + "/f.yaml\n",
		"generator envs":             "configMapGenerator:\n- name: g\n  envs:\n  - " + u + "/e.env\n",
		"openapi path":               "resources:\n- cm.yaml\nopenapi:\n  path: " + u + "/openapi.json\n",
		"crds":                       "resources:\n- cm.yaml\ncrds:\n- " + u + "/crd.yaml\n",
		"configurations":             "resources:\n- cm.yaml\nconfigurations:\n- " + u + "/c.yaml\n",
		"replacements":               "resources:\n- cm.yaml\nreplacements:\n- path: " + u + "/rep.yaml\n",
		"transformers":               "resources:\n- cm.yaml\ntransformers:\n- " + u + "/t.yaml\n",
		"generators":                 "generators:\n- " + u + "/g.yaml\n",
		"transformers kustomization": "resources:\n- cm.yaml\ntransformers:\n- ../tk\n",
		"transformers git base":      "resources:\n- cm.yaml\ntransformers:\n- " + u + "/org/repo.git//base?ref=main\n",
	}
	for name, k := range cases {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			files := map[string]string{"apps/kustomization.yaml": k, "apps/cm.yaml": cm,
				"tk/kustomization.yaml": "resources:\n- " + u + "/tk.yaml\n"}
			if err := incident.WriteFiles(root, files); err != nil {
				t.Fatal(err)
			}
			before := hits.Load()
			res := Build(context.Background(), root, Kustomization{Path: "apps"}, Options{})
			if n := hits.Load() - before; n > 0 {
				t.Fatalf("an offline build made %d requests (err %v)", n, res.Err)
			}
			if !errors.Is(res.Err, ErrNeedsNetwork) || len(res.RemoteURLs) == 0 || !strings.Contains(res.Err.Error(), u) {
				t.Fatalf("err = %v, URLs %v; want ErrNeedsNetwork naming a URL of %s", res.Err, res.RemoteURLs, u)
			}
		})
	}
	t.Run("allowed", func(t *testing.T) {
		root := t.TempDir()
		if err := incident.WriteFiles(root, map[string]string{"apps/kustomization.yaml": cases["patchesStrategicMerge"], "apps/cm.yaml": cm}); err != nil {
			t.Fatal(err)
		}
		before := hits.Load()
		res := Build(context.Background(), root, Kustomization{Path: "apps"}, Options{AllowNetwork: true})
		if hits.Load() == before {
			t.Fatalf("with AllowNetwork the server was never asked (err %v): the test cannot see a fetch", res.Err)
		}
	})
}

// A server that accepts the connection and never answers must not hang a build allowed to
// fetch: the read gives up after the network timeout and the tier fails naming the URL.
func TestNetworkTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() }) // accepted, never answered
		}
	}()
	url := "http://" + ln.Addr().String() + "/slow.yaml"
	root := t.TempDir()
	files := map[string]string{"apps/kustomization.yaml": "resources:\n- cm.yaml\npatchesStrategicMerge:\n- " + url + "\n",
		"apps/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local\n"}
	if err := incident.WriteFiles(root, files); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	res := Build(WithNetworkTimeout(ctx, time.Second), root, Kustomization{Path: "apps"}, Options{AllowNetwork: true})
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("the build took %s with a 1s network timeout", took)
	}
	if res.Err == nil || !strings.Contains(res.Err.Error(), "no complete answer within 1s") || !strings.Contains(res.Err.Error(), url) {
		t.Fatalf("err = %v, want a timeout naming %s", res.Err, url)
	}
}
