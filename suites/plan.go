package suites

import "sync"

// plan counts the specs declared for each requirement so that Run can say
// when a requirement has settled (all its specs ran).
type plan struct {
	mu       sync.Mutex
	declared map[string]int
	order    []string
}

func newPlan() *plan { return &plan{declared: map[string]int{}} }

func (p *plan) add(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.declared[id] == 0 {
		p.order = append(p.order, id)
	}
	p.declared[id]++
}

func (p *plan) count(id string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.declared[id]
}
