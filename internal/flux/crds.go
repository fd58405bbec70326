package flux

import (
	"context"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
)

// CRDGVR is the resource CustomResourceDefinitions are listed from.
var CRDGVR = apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions")

// ListCRDs reads every CustomResourceDefinition, a page at a time; a nil slice only with an
// error.
func ListCRDs(ctx context.Context, dyn dynamic.Interface) ([]apiextensionsv1.CustomResourceDefinition, error) {
	out := []apiextensionsv1.CustomResourceDefinition{}
	opts := metav1.ListOptions{Limit: 500}
	for {
		list, err := dyn.Resource(CRDGVR).List(ctx, opts)
		if err != nil {
			return nil, err
		}
		for i := range list.Items {
			var crd apiextensionsv1.CustomResourceDefinition
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(list.Items[i].Object, &crd); err != nil {
				return nil, fmt.Errorf("decoding %s: %w", list.Items[i].GetName(), err)
			}
			out = append(out, crd)
		}
		if opts.Continue = list.GetContinue(); opts.Continue == "" {
			return out, nil
		}
	}
}
