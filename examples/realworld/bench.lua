-- wrk's script for bench.sh: each request is METHOD PATH_TEMPLATE, the
-- template's {slug} replaced by the next slug of the file SLUGS (one a
-- line), with "Authorization: Token TOKEN" when TOKEN is set. done prints
-- one line bench.sh reads: requests, duration (µs), p50 and p99 (µs),
-- answers that were no 2xx, and socket errors.
local method = os.getenv("METHOD")
local template = os.getenv("PATH_TEMPLATE")
local token = os.getenv("TOKEN")
local slugs = {}
for line in io.lines(os.getenv("SLUGS")) do
	slugs[#slugs + 1] = line
end
local n = 0

request = function()
	n = n + 1
	local path = template:gsub("{slug}", slugs[n % #slugs + 1])
	local headers = {}
	if token and token ~= "" then
		headers["Authorization"] = "Token " .. token
	end
	return wrk.format(method, path, headers)
end

done = function(summary, latency, requests)
	local e = summary.errors
	io.write(string.format("RESULT %d %d %d %d %d %d\n", summary.requests, summary.duration,
		latency:percentile(50), latency:percentile(99), e.status, e.connect + e.read + e.write + e.timeout))
end
