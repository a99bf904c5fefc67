"""The HTTP server (`keras-sentemb serve`): OpenAI's `/v1/embeddings`, text-embeddings-inference's
`/embed` and `/rerank`, health and Prometheus metrics, with requests of many clients merged into model
batches. See docs/serving_http.md."""
