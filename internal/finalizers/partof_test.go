package finalizers

import (
	"context"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

var (
	testStores     = kinds.Resource{Group: "db.example.io", Version: "v1", Resource: "stores", Kind: "Store", Namespaced: true, Verbs: []string{"get", "list"}}
	testStoreUsers = kinds.Resource{Group: "db.example.io", Version: "v1", Resource: "storeusers", Kind: "StoreUser", Namespaced: true, Verbs: []string{"get", "list"}}
	testRoles      = kinds.Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles", Kind: "Role", Namespaced: true, Verbs: []string{"get", "list"}}
	testSecrets    = kinds.Resource{Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true, Verbs: []string{"get", "list"}}
)

// A kind is built on another kind of its group when the other's name starts it and the rest
// starts a new word; the longest such kind wins, and short or word-internal prefixes do not count.
func TestWholeKind(t *testing.T) {
	byKind := map[string]kinds.Resource{}
	for _, k := range []string{"Postgres", "PostgresUser", "Kafka", "KafkaConnect", "KafkaConnector", "Job", "JobSet", "Policy", "Policyset"} {
		byKind[strings.ToLower(k)] = kinds.Resource{Kind: k}
	}
	for part, want := range map[string]string{
		"PostgresUser":   "Postgres",
		"KafkaConnector": "Kafka", // "KafkaConnect" ends inside the word "Connector"
		"KafkaConnect":   "Kafka",
		"JobSet":         "", // "Job" is too short to say
		"Policyset":      "", // no new word after "Policy"
		"Postgres":       "",
	} {
		got, ok := wholeKind(kinds.Resource{Kind: part}, byKind)
		if got.Kind != want || ok != (want != "") {
			t.Errorf("wholeKind(%s) = %q, %v; want %q", part, got.Kind, ok, want)
		}
	}
}

// Which top-level spec fields may hold the name of the whole: names, not settings, sizes,
// durations, the object's own name, fields named for a served kind, enumerations in the schema,
// or values the status records as made from them.
func TestMayNameWhole(t *testing.T) {
	served := map[string]bool{"secret": true, "role": true, "store": true}
	props := map[string]apiextensionsv1.JSONSchemaProps{
		"tier":     {Type: "string", Enum: []apiextensionsv1.JSON{{Raw: []byte(`"gold"`)}}},
		"endpoint": {Type: "string", Format: "hostname"},
		"replicas": {Type: "integer"},
		"database": {Type: "string"},
	}
	made := []string{"app-6xq2kd", "test-db"}
	for _, tc := range []struct {
		key, value string
		want       bool
	}{
		{"database", "my-db", true},
		{"owner", "my-db", true},       // not in the schema: free
		{"owner", "app", false},        // status.… app-6xq2kd was made from it
		{"database", "test-db", false}, // the status records it as is
		{"owner", "Not A Name", false},
		{"owner", "true", false},
		{"owner", "30s", false},
		{"owner", "10gi", false},
		{"owner", "u1", false}, // the object's own name
		{"secretName", "creds", false},
		{"role", "reader", false},
		{"name", "x", false},
		{"storeName", "main", false}, // named for a kind: the other rules' reference
		{"tier", "gold", false},
		{"endpoint", "db.example.com", false},
		{"replicas", "three", false},
	} {
		if got := mayNameWhole(tc.key, tc.value, "u1", served, props, made); got != tc.want {
			t.Errorf("mayNameWhole(%s: %s) = %v, want %v", tc.key, tc.value, got, tc.want)
		}
	}
}

// partOfFixture is an Explainer serving Store and StoreUser (and a Role and a Secret kind),
// with the stores given existing, the StoreUsers given listed, and the StoreUser CRD's schema
// when one is given.
func partOfFixture(t *testing.T, spec *apiextensionsv1.JSONSchemaProps, users []runtime.Object, stores ...string) *Explainer {
	t.Helper()
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	var objs []runtime.Object
	for _, s := range stores {
		objs = append(objs, &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "db.example.io/v1", Kind: "Store"}, ObjectMeta: metav1.ObjectMeta{Name: s, Namespace: "app", UID: types.UID("uid-" + s)}})
	}
	crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: "storeusers.db.example.io"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: "db.example.io", Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "storeusers", Kind: "StoreUser"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true}}}}
	if spec != nil {
		crd.Spec.Versions[0].Schema = &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
			Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": *spec}}}
	}
	c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(),
		APIExtensions: apiextensionsfake.NewSimpleClientset(crd), Metadata: metadatafake.NewSimpleMetadataClient(scheme, objs...),
		Dynamic: dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{testStoreUsers.GVR(): "StoreUserList"}, users...)}
	return New(c, kinds.NewCatalog([]kinds.Resource{testStores, testStoreUsers, testRoles, testSecrets}, nil))
}

// The whole a part belongs to is inferred from the one spec field that can hold its name; it is
// missing when no such object exists, and nothing is inferred when the evidence is not there.
func TestPartOfReferenceMissingWhole(t *testing.T) {
	now := time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC)
	user := map[string]any{"login": "app", "role": "reader", "database": "my-db", "secretName": "creds", "privileges": "OWNER"}
	status := map[string]any{"succeeded": true, "postgresRole": "app-6xq2kd", "databaseName": "test-db"}
	for _, tc := range []struct {
		name    string
		spec    map[string]any
		status  map[string]any
		schema  *apiextensionsv1.JSONSchemaProps
		owners  []metav1.OwnerReference
		age     time.Duration
		stores  []string
		others  []runtime.Object
		missing string
		conf    string
	}{
		{"the one field that can hold the name names a whole that is gone", user, status, nil, nil, time.Hour, nil, nil, "stores.db.example.io/my-db -n app", "confidence low"},
		{"another part's same field names a whole that exists", user, status, nil, nil, time.Hour, []string{"main"}, []runtime.Object{storeUser("team", "u2", "main"), storeUser("app", "u3", "main")}, "stores.db.example.io/my-db -n app", "confidence medium"},
		{"another part's same field names a whole that is gone too", user, status, nil, nil, time.Hour, nil, []runtime.Object{storeUser("app", "u3", "old-db")}, "stores.db.example.io/my-db -n app", "confidence low"},
		{"the whole exists", user, status, nil, nil, time.Hour, []string{"my-db"}, nil, "", ""},
		{"within the grace period", user, status, nil, nil, time.Minute, nil, nil, "", ""},
		{"two fields could hold it (no status says what login made)", user, nil, nil, nil, time.Hour, nil, nil, "", ""},
		{"the schema makes the other field an enumeration", user, nil, &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"login": {Type: "string", Enum: []apiextensionsv1.JSON{{Raw: []byte(`"app"`)}}}, "database": {Type: "string"}}}, nil, time.Hour, nil, nil, "stores.db.example.io/my-db -n app", "confidence low"},
		{"an owner of the whole's kind says which (the owner rule's)", user, status, nil, []metav1.OwnerReference{{APIVersion: "db.example.io/v1", Kind: "Store", Name: "main", UID: "uid-main"}}, time.Hour, []string{"main"}, nil, "", ""},
		{"a field named for the whole says which (the field rule's)", map[string]any{"store": "main", "database": "my-db"}, nil, nil, nil, time.Hour, []string{"main"}, nil, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := partOfFixture(t, tc.schema, tc.others, tc.stores...).At(now)
			deleted := metav1.NewTime(now.Add(-tc.age))
			o := subject{res: testStoreUsers, obj: &metav1.ObjectMeta{Name: "u1", Namespace: "app", DeletionTimestamp: &deleted, OwnerReferences: tc.owners}}
			body := &unstructured.Unstructured{Object: map[string]any{"spec": tc.spec}}
			if tc.status != nil {
				body.Object["status"] = tc.status
			}
			// The object's own success does not stop the inference: a part's cleanup runs within
			// its whole now.
			found, gaps := x.danglingRefs(context.Background(), o, ownWord{obj: body, conditions: []Condition{{Type: "Ready", Status: "True"}}})
			if len(gaps) > 0 {
				t.Fatalf("gaps %v", gaps)
			}
			var got []string
			for _, d := range found {
				got = append(got, d.ref.String())
				if !d.inferred || !strings.Contains(d.reason, "by inference") || !strings.Contains(d.reason, tc.conf+":") || !strings.Contains(d.reason, "spec.database") {
					t.Errorf("reason %q does not say it is inferred, from which field, with what confidence", d.reason)
				}
			}
			if strings.Join(got, ",") != tc.missing {
				t.Errorf("missing %q, want %q", got, tc.missing)
			}
		})
	}
}

// storeUser is a StoreUser in ns whose spec.database names database.
func storeUser(ns, name, database string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "db.example.io/v1", "kind": "StoreUser",
		"spec": map[string]any{"database": database}}}
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}
