package browser

import (
	"context"
	"time"
)

// bound returns a context whose deadline and cancellation are ctx's and
// whose values (the chromedp browser and target) are those of cdpCtx. A
// chromedp action run on it is bounded by the caller and leaves the target
// alive when ctx ends, which an action on a context derived from ctx with
// a timeout would not do for the first run of a target.
func bound(ctx, cdpCtx context.Context) context.Context {
	return valuesFrom{Context: ctx, values: cdpCtx}
}

// valuesFrom is the context of bound.
type valuesFrom struct {
	context.Context                 // deadline, Done and Err
	values          context.Context // Value
}

// Value looks key up in the chromedp context first.
func (v valuesFrom) Value(key any) any {
	if x := v.values.Value(key); x != nil {
		return x
	}
	return v.Context.Value(key)
}

// await runs f on its own goroutine and returns its error, or ctx's error
// as soon as ctx ends. f must not outlive the contexts the caller cancels
// after a timeout: chromedp's first run of a browser or target binds them
// to the context it is given, so that context cannot carry ctx's deadline.
func await(ctx context.Context, f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// sleep waits d or until ctx ends, and returns ctx's error then.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// shortly is a context for housekeeping calls (dismissing a dialog,
// stopping a script, detaching): they answer at once or not at all.
func shortly(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}
