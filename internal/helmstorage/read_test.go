package helmstorage

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/release/common"
	rspb "helm.sh/helm/v4/pkg/release/v1"
	"helm.sh/helm/v4/pkg/storage/driver"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// sentinel is placed in every release's values and chart values: no output or error may show it.
const sentinel = "SENTINEL-VALUE-7f3a"

const manifest = `---
# Source: web/templates/claim.yaml
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: web-data
---
# Source: web/templates/empty.yaml
---
# Source: web/templates/deploy.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: apps
`

// release is a release as helm-controller has Helm store it, values carrying the sentinel.
func release(name string, version int, status common.Status, manifest string) *rspb.Release {
	return &rspb.Release{Name: name, Namespace: "apps", Version: version, Manifest: manifest,
		Info:   &rspb.Info{Status: status, Description: "Upgrade complete"},
		Config: map[string]any{"password": sentinel},
		Chart:  &chart.Chart{Metadata: &chart.Metadata{Name: "web", Version: fmt.Sprintf("1.%d.0", version), APIVersion: "v2"}, Values: map[string]any{"token": sentinel}},
	}
}

// store writes releases with Helm's own Secrets driver (or ConfigMaps driver).
func store(t *testing.T, kube *fake.Clientset, configMaps bool, rels ...*rspb.Release) {
	t.Helper()
	var d driver.Driver = driver.NewSecrets(kube.CoreV1().Secrets("flux-system"))
	if configMaps {
		d = driver.NewConfigMaps(kube.CoreV1().ConfigMaps("flux-system"))
	}
	for _, r := range rels {
		if err := d.Create(fmt.Sprintf("sh.helm.release.v1.%s.v%d", r.Name, r.Version), r); err != nil {
			t.Fatal(err)
		}
	}
}

var loc = Location{StorageNamespace: "flux-system", Name: "web"}

// The deployed revision with the highest version is read, from Secrets or ConfigMaps written
// by Helm's own drivers, and its manifest splits into the objects Helm's decoder gives.
func TestDeployed(t *testing.T) {
	for _, cm := range []bool{false, true} {
		t.Run(fmt.Sprintf("configMaps=%v", cm), func(t *testing.T) {
			kube := fake.NewClientset()
			store(t, kube, cm, release("web", 1, common.StatusSuperseded, "kind: ConfigMap\nmetadata: {name: old}\n"),
				release("web", 2, common.StatusDeployed, manifest), release("web", 3, common.StatusFailed, "kind: ConfigMap\nmetadata: {name: failed}\n"),
				release("other", 9, common.StatusDeployed, "kind: ConfigMap\nmetadata: {name: other}\n"))
			rel, err := Deployed(context.Background(), kube, loc)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, o := range rel.Objects {
				ids = append(ids, o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName())
			}
			want := []string{"PersistentVolumeClaim//web-data", "Deployment/apps/web"}
			if !slices.Equal(ids, want) || rel.Version != 2 || rel.Chart != "web" || rel.ChartVersion != "1.2.0" || rel.Namespace != "apps" || !strings.Contains(rel.Record, "sh.helm.release.v1.web.v2") {
				t.Fatalf("%+v objects %v", rel, ids)
			}
			// Helm's own decoder reads the same release from the same records.
			var d driver.Driver = driver.NewSecrets(kube.CoreV1().Secrets("flux-system"))
			if cm {
				d = driver.NewConfigMaps(kube.CoreV1().ConfigMaps("flux-system"))
			}
			got, err := d.Get("sh.helm.release.v1.web.v2")
			if err != nil {
				t.Fatal(err)
			}
			if hr := got.(*rspb.Release); hr.Manifest != manifest || hr.Version != rel.Version {
				t.Fatalf("Helm decodes another release: %+v", hr)
			}
		})
	}
}

// Every way the storage cannot be read is a typed *Error whose text never carries the data.
func TestDeployedFails(t *testing.T) {
	bomb := func() []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write([]byte(`{"name":"web","manifest":"`))
		_, _ = zw.Write(bytes.Repeat([]byte("a"), MaxReleaseBytes+10))
		_ = zw.Close()
		return []byte(base64.StdEncoding.EncodeToString(buf.Bytes()))
	}
	secret := func(data []byte) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "sh.helm.release.v1.web.v1", Namespace: "flux-system",
			Labels: map[string]string{"owner": "helm", "name": "web", "status": "deployed", "version": "1"}}, Data: map[string][]byte{"release": data}}
	}
	for _, tc := range []struct {
		name string
		kube func() *fake.Clientset
		want Reason
	}{
		{"missing", func() *fake.Clientset { return fake.NewClientset() }, Missing},
		{"forbidden", func() *fake.Clientset {
			k := fake.NewClientset()
			k.PrependReactor("list", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "", errors.New("no"))
			})
			return k
		}, Forbidden},
		{"not base64", func() *fake.Clientset { return fake.NewClientset(secret([]byte("%%" + sentinel))) }, Undecodable},
		{"not json", func() *fake.Clientset {
			return fake.NewClientset(secret([]byte(base64.StdEncoding.EncodeToString([]byte(`{"config":{"password":"` + sentinel + `"`)))))
		}, Undecodable},
		{"labels lie", func() *fake.Clientset {
			return fake.NewClientset(secret([]byte(base64.StdEncoding.EncodeToString([]byte(`{"name":"web","version":1,"info":{"status":"superseded"}}`)))))
		}, Undecodable},
		{"too large", func() *fake.Clientset { return fake.NewClientset(secret(bomb())) }, TooLarge},
		{"record too large", func() *fake.Clientset { return fake.NewClientset(secret(bytes.Repeat([]byte("A"), MaxRecordBytes+4))) }, TooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Deployed(context.Background(), tc.kube(), loc)
			var e *Error
			if !errors.As(err, &e) || e.Reason != tc.want || strings.Contains(err.Error(), sentinel) {
				t.Fatalf("got %v, want reason %s", err, tc.want)
			}
		})
	}
}

func TestLocate(t *testing.T) {
	long := strings.Repeat("a", 60)
	for _, tc := range []struct{ name, hr, want string }{
		{"status", `{"metadata":{"name":"web","namespace":"apps"},"spec":{"releaseName":"x"},"status":{"storageNamespace":"flux-system","history":[{"name":"web-old"}]}}`, "flux-system/web-old"},
		{"spec", `{"metadata":{"name":"web","namespace":"apps"},"spec":{"storageNamespace":"store","targetNamespace":"t"}}`, "store/t-web"},
		{"default", `{"metadata":{"name":"web","namespace":"apps"}}`, "apps/web"},
		{"shortened", `{"metadata":{"name":"` + long + `","namespace":"apps"}}`, "apps/" + long[:40] + "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := map[string]any{}
			if err := json.Unmarshal([]byte(tc.hr), &u); err != nil {
				t.Fatal(err)
			}
			l := Locate(&unstructured.Unstructured{Object: u})
			if got := l.StorageNamespace + "/" + l.Name; !strings.HasPrefix(got, tc.want) || (tc.name == "shortened" && len(l.Name) != 53) {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}
