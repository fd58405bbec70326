package helmrender

import (
	"context"
	"errors"
	"fmt"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	"github.com/fluxcd/pkg/chartutil"
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ComposeValues merges a HelmRelease's values with helm-controller's own code, fluxcd/pkg
// chartutil.ChartValuesFromReferences: each spec.valuesFrom in order (a whole document merged
// deeply, or with targetPath one value set at that path, literally when `literal: true`), then
// spec.values on top; a missing object or key is skipped when the reference is optional.
//
// The library reads through a Kubernetes client; here that client is an in-memory one holding
// only the ConfigMaps and Secrets the builds declare that the references name, as the API
// server would store them (a Secret's stringData merged into data; a ConfigMap's binaryData
// kept, and, as by helm-controller, never read as values). A reference to an object no build
// declares fails, naming it, and a Secret encrypted with SOPS is never decrypted: both are
// errors, never guesses. secret reports whether a Secret was among the objects referenced.
func ComposeValues(ctx context.Context, hr *helmv2.HelmRelease, objs []*unstructured.Unstructured) (vals map[string]any, secret bool, err error) {
	c, secret, err := declaredClient(hr, objs)
	if err != nil {
		return nil, secret, err
	}
	v, err := chartutil.ChartValuesFromReferences(ctx, logr.Discard(), c, hr.Namespace, hr.GetValues(), hr.Spec.ValuesFrom...)
	if err != nil {
		return nil, secret, valuesError(err)
	}
	return v.AsMap(), secret, nil
}

// valuesError names the reference that failed. A document that does not parse may be quoted
// by the parser: a Secret's never is, and a missing object is said to be one no build declares.
func valuesError(err error) error {
	var ref *chartutil.ErrValuesReference
	if !errors.As(err, &ref) {
		return fmt.Errorf("valuesFrom: %w", err)
	}
	name := fmt.Sprintf("valuesFrom %s %s", ref.Kind, ref.Name)
	switch {
	case errors.Is(ref.Reason, chartutil.ErrResourceNotFound):
		return fmt.Errorf("%s: no tier that built declares it (a Secret made by another controller, e.g. ExternalSecrets, is not seen)", name)
	case errors.Is(ref.Reason, chartutil.ErrKeyNotFound):
		return fmt.Errorf("%s: has no key %s (helm-controller reads a ConfigMap's data and a Secret's data, never binaryData)", name, ref.Key)
	case ref.Kind == "Secret" && (errors.Is(ref.Reason, chartutil.ErrValuesDataRead) || errors.Is(ref.Reason, chartutil.ErrValueMerge)):
		return fmt.Errorf("%s key %s: the value does not parse (its text is not shown)", name, ref.Key)
	}
	return fmt.Errorf("%s: %w", name, ref)
}

// declaredClient is a client that holds the ConfigMaps and Secrets of hr's namespace among
// objs that hr's valuesFrom names. An object of the builds without a namespace is taken to be
// in hr's, where the build's namespace would have put it, unless one of the same name names
// it explicitly.
func declaredClient(hr *helmv2.HelmRelease, objs []*unstructured.Unstructured) (client.Client, bool, error) {
	named := map[string]bool{}
	for _, ref := range hr.Spec.ValuesFrom {
		named[ref.Kind+" "+ref.Name] = true
	}
	chosen := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		id := gvk.Kind + " " + o.GetName()
		if gvk.Group != "" || !named[id] || (o.GetNamespace() != hr.Namespace && o.GetNamespace() != "") {
			continue
		}
		if prev := chosen[id]; prev == nil || prev.GetNamespace() == "" {
			chosen[id] = o
		}
	}
	c := declared{stored: map[string]client.Object{}}
	secret := false
	for id, o := range chosen {
		obj, err := typed(o, hr.Namespace)
		if err != nil {
			return nil, secret, fmt.Errorf("valuesFrom %s %s/%s: %w", o.GetKind(), hr.Namespace, o.GetName(), err)
		}
		if _, ok := obj.(*corev1.Secret); ok {
			secret = true
		}
		c.stored[id] = obj
	}
	return c, secret, nil
}

// declared is the client ChartValuesFromReferences reads the declared objects through. The
// library only gets ConfigMaps and Secrets by name (values_diff_test.go holds it to reading a
// real API server), so Get is all declared answers: it is not controller-runtime's fake
// client, whose construction parses every built-in type's schema, the larger part of a gate
// that renders one release. Any other method is the nil embedded client's, and panics.
type declared struct {
	client.Client
	stored map[string]client.Object // by "Kind name", in the HelmRelease's namespace
}

// Get copies the stored ConfigMap or Secret key names into obj, or fails NotFound as the API
// server does.
func (d declared) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	kind, resource := "", ""
	switch obj.(type) {
	case *corev1.ConfigMap:
		kind, resource = "ConfigMap", "configmaps"
	case *corev1.Secret:
		kind, resource = "Secret", "secrets"
	default:
		return fmt.Errorf("%T is not read as values", obj)
	}
	stored := d.stored[kind+" "+key.Name]
	if stored == nil || stored.GetNamespace() != key.Namespace {
		return apierrors.NewNotFound(schema.GroupResource{Resource: resource}, key.Name)
	}
	switch s := stored.(type) {
	case *corev1.ConfigMap:
		s.DeepCopyInto(obj.(*corev1.ConfigMap))
	case *corev1.Secret:
		s.DeepCopyInto(obj.(*corev1.Secret))
	}
	return nil
}

// typed is o as the API server stores it, in namespace ns.
func typed(o *unstructured.Unstructured, ns string) (client.Object, error) {
	switch o.GetKind() {
	case "ConfigMap":
		cm := &corev1.ConfigMap{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, cm); err != nil {
			return nil, fmt.Errorf("does not decode as a ConfigMap: %w", err)
		}
		cm.Namespace = ns
		return cm, nil
	case "Secret":
		if _, sops := o.Object["sops"]; sops {
			return nil, errors.New("encrypted with SOPS, which is never decrypted here")
		}
		s := &corev1.Secret{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, s); err != nil {
			// The converter's message may quote the data: it is not shown.
			return nil, errors.New("does not decode as a Secret (a data value that is not base64?)")
		}
		if s.Data == nil && len(s.StringData) > 0 {
			s.Data = map[string][]byte{}
		}
		for k, v := range s.StringData {
			s.Data[k] = []byte(v)
		}
		s.StringData = nil
		s.Namespace = ns
		return s, nil
	}
	return nil, fmt.Errorf("kind %s is not read as values", o.GetKind())
}
