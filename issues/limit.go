package issues

// checkOmitted marks the issue that stands for issues an adapter counted
// but did not build, their number in its Input; internal/issuesx builds it.
const checkOmitted = "omitted"
