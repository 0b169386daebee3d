package issuesx

import "github.com/selfheal/selfheal/issues"

// Sited is a list of issues with the sites they were built at, by index
// (see Site), as the module's MCP integrations carry them from validation
// to the answer. As an error it is an issues.Carrier; selfheal's Engine
// words its issues through their sites.
type Sited struct {
	List  issues.List
	Sites []*Site
}

// Error summarises the issues, as issues.List does.
func (s *Sited) Error() string { return s.List.Error() }

// Issues returns the list.
func (s *Sited) Issues() issues.List { return s.List }
