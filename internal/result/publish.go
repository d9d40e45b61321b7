package result

// Publish holds the figures of the publish workload (seed 2); filled by internal/workload/publish.
type Publish struct {
	Publishers int `json:"publishers"`
}
