package proxy

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// Change is `stampede proxy set`: it changes the faults of the listener
// name of the proxy whose API is at api to the fault flags set in fs (see
// AddFlags), keeping the others (clearing them with replace), and returns
// the listener as it is then. With no fault flag set and no replace it
// changes nothing. A warning that the new faults take the node down goes
// to warn. Errors in what was asked (an API address that is not one, a
// listener the proxy does not have, faults it refuses) match ErrSetup.
func Change(ctx context.Context, api, name string, fs *pflag.FlagSet, replace bool, warn func(string)) (Listener, error) {
	if err := CheckAPIAddr(api); err != nil {
		return Listener{}, fmt.Errorf("%w set: --api: %v", ErrSetup, err)
	}
	c := NewClient(api)
	l, err := c.Listener(ctx, name)
	if errors.Is(err, ErrNoListener) {
		var names []string
		if all, err := c.Listeners(ctx); err == nil {
			for _, l := range all {
				names = append(names, l.Name)
			}
		}
		return l, fmt.Errorf("%w set: the proxy at %s has no listener %q: name one of its listeners (%s)", ErrSetup, api, name, strings.Join(names, ", "))
	}
	if err != nil {
		return l, fmt.Errorf("proxy set: %v", err)
	}
	base := l.Faults
	if replace {
		base = Faults{}
	}
	f, changed, err := FromFlags(fs, base)
	if err != nil {
		return l, fmt.Errorf("%w set: %v", ErrSetup, err)
	}
	if !changed && !replace {
		return l, nil
	}
	if w := DownWarning(name, f, api); w != "" && f != l.Faults {
		warn(w)
	}
	if l, err = c.SetFaults(ctx, name, f); err != nil {
		var re *RequestError
		if errors.As(err, &re) && re.Status < 500 {
			return l, fmt.Errorf("%w set: %v", ErrSetup, err) // faults the proxy refused
		}
		return l, fmt.Errorf("proxy set: %v", err)
	}
	return l, nil
}
