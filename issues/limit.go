package issues

// checkOmitted marks the issue that stands for issues an adapter counted
// but did not build (see Issue.Omitted); internal/issuesx builds it.
const checkOmitted = "omitted"
