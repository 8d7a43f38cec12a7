package tool

import (
	"errors"
	"strings"
	"testing"
)

// TestNeedResources: a call without a worker's resources (a stateful tool
// run outside an Igor) is refused INTERNAL naming who needs them.
func TestNeedResources(t *testing.T) {
	var none *Call
	for _, c := range []*Call{none, {}} {
		err := c.NeedResources("GitHub tools")
		var te *Error
		if !errors.As(err, &te) || te.Code != CodeInternal || !strings.Contains(te.Message, "GitHub tools need a worker's resources") {
			t.Errorf("%+v: %v", c, err)
		}
	}
	if err := (&Call{Resources: NewResources()}).NeedResources("GitHub tools"); err != nil {
		t.Errorf("with resources: %v", err)
	}
}
