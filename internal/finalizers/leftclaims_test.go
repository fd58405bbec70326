package finalizers

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

const genericLeft = "left behind: whatever the controller would have cleaned up outside the cluster"

var testClusters = kinds.Resource{Group: "db.example.io", Version: "v1", Resource: "databases", Kind: "Database", Namespaced: true, Verbs: []string{"get", "list"}}

func ownerRefs(kind, apiVersion, name, uid string) []metav1.OwnerReference {
	return []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: name, UID: typesUID(uid)}}
}

func testSet(name, uid string, owners []metav1.OwnerReference, policy appsv1.PersistentVolumeClaimRetentionPolicyType, templates ...string) *appsv1.StatefulSet {
	s := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "data", UID: typesUID(uid), OwnerReferences: owners}}
	for _, t := range templates {
		s.Spec.VolumeClaimTemplates = append(s.Spec.VolumeClaimTemplates, corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: t}})
	}
	if policy != "" {
		s.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: policy}
	}
	return s
}

func testClaim(name, volume string, owners []metav1.OwnerReference) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "data", OwnerReferences: owners}, Spec: corev1.PersistentVolumeClaimSpec{VolumeName: volume}}
}

// A strip's cost names the claims of the StatefulSets the object owns (directly, or through one
// owned object between) that garbage collection keeps; claims the retention policy has deleted
// (an ownerReference to the StatefulSet or its pod), claims of StatefulSets it does not own and
// names that are not `<template>-<statefulset>-<ordinal>` are not named; a refused read is a gap
// and the cost says so, never "nothing".
func TestNameOwnedClaims(t *testing.T) {
	dbRef := ownerRefs("Database", "db.example.io/v1", "main", "db-uid")
	for _, tc := range []struct {
		name    string
		objects []runtime.Object
		owners  []runtime.Object // intermediate owners, read by metadata
		deny    string           // resource whose reads are refused
		want    []string         // in the cost
		not     []string         // not in the cost
		gap     string
	}{
		{name: "owned directly, bound, reclaim policy read",
			objects: []runtime.Object{testSet("main-sts", "sts-uid", dbRef, "", "data"), testClaim("data-main-sts-0", "pv-0", nil), testClaim("data-main-sts-3", "", nil),
				&corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-0"}, Spec: corev1.PersistentVolumeSpec{PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete}}},
			want: []string{"persistentvolumeclaims/data-main-sts-0 -n data (from volumeClaimTemplate data of statefulsets.apps/main-sts -n data), bound to persistentvolumes/pv-0 (reclaim policy Delete)",
				"persistentvolumeclaims/data-main-sts-3 -n data", "not bound to a volume", "; and whatever the controller"}, not: []string{"possibly"}},
		{name: "claims the retention policy deletes are not named",
			objects: []runtime.Object{testSet("main-sts", "sts-uid", dbRef, appsv1.DeletePersistentVolumeClaimRetentionPolicyType, "data"),
				testClaim("data-main-sts-0", "", ownerRefs("StatefulSet", "apps/v1", "main-sts", "sts-uid")),
				testClaim("data-main-sts-1", "", ownerRefs("Pod", "v1", "main-sts-1", "pod-uid")),
				testClaim("data-main-sts-2", "", nil)},
			want: []string{"data-main-sts-2", "its retention policy says Delete, but the claim carries no ownerReference"},
			not:  []string{"data-main-sts-0", "data-main-sts-1"}},
		{name: "a StatefulSet not owned, and names not made from a template",
			objects: []runtime.Object{testSet("other", "o-uid", ownerRefs("Database", "db.example.io/v1", "other", "other-uid"), "", "data"), testClaim("data-other-0", "", nil),
				testSet("main-sts", "sts-uid", dbRef, "", "data"), testClaim("data-main-sts-x", "", nil), testClaim("logs-main-sts-0", "", nil)},
			want: []string{genericLeft}},
		{name: "owned one level down",
			objects: []runtime.Object{testSet("rack-a", "sts-uid", ownerRefs("Database", "db.example.io/v1", "rack", "rack-uid"), "", "data"), testClaim("data-rack-a-0", "", nil)},
			owners: []runtime.Object{&metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "db.example.io/v1", Kind: "Database"},
				ObjectMeta: metav1.ObjectMeta{Name: "rack", Namespace: "data", UID: typesUID("rack-uid"), OwnerReferences: dbRef}}},
			want: []string{"persistentvolumeclaims/data-rack-a-0 -n data", "owned through databases.db.example.io/rack -n data"}},
		{name: "the StatefulSets cannot be listed",
			deny: "statefulsets", want: []string{"not all of them could be read", "; and whatever"}, gap: "statefulsets/"},
		{name: "the volume cannot be read",
			objects: []runtime.Object{testSet("main-sts", "sts-uid", dbRef, "", "data"), testClaim("data-main-sts-0", "pv-0", nil)},
			deny:    "persistentvolumes", want: []string{"bound to persistentvolumes/pv-0 (reclaim policy not read)", "possibly more: not all could be read"}, gap: "persistentvolumes/pv-0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube := kubefake.NewSimpleClientset(tc.objects...)
			if tc.deny != "" {
				kube.PrependReactor("*", tc.deny, func(clienttesting.Action) (bool, runtime.Object, error) {
					return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: tc.deny}, "", nil)
				})
			}
			scheme := metadatafake.NewTestScheme()
			if err := metav1.AddMetaToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kube, Metadata: metadatafake.NewSimpleMetadataClient(scheme, tc.owners...)}
			x := New(c, kinds.NewCatalog([]kinds.Resource{testClusters}, nil))
			e := &Explanation{Finalizers: []Finalizer{{Name: "db.example.io/cleanup", Remedies: []Remediation{
				{Summary: "reinstall"},
				{Code: ReasonStripFinalizer, LastResort: true, Cost: genericLeft}}}}}
			obj := &metav1.ObjectMeta{Name: "main", Namespace: "data", UID: typesUID("db-uid"), Finalizers: []string{"db.example.io/cleanup"}}
			x.nameOwnedClaims(context.Background(), subject{res: testClusters, obj: obj}, e)
			cost := e.Finalizers[0].Remedies[1].Cost
			for _, w := range tc.want {
				if !strings.Contains(cost, w) {
					t.Errorf("cost %q does not name %q", cost, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(cost, n) {
					t.Errorf("cost %q names %q", cost, n)
				}
			}
			if e.Finalizers[0].Remedies[0].Cost != "" {
				t.Errorf("a step that is no strip got a cost: %q", e.Finalizers[0].Remedies[0].Cost)
			}
			if (tc.gap == "") != (len(e.Unchecked) == 0) || (tc.gap != "" && !strings.Contains(e.Unchecked[0].Subject.Resource+"/"+e.Unchecked[0].Subject.Name, tc.gap)) {
				t.Errorf("unchecked %q, want one naming %q", e.Unchecked, tc.gap)
			}
		})
	}
}
