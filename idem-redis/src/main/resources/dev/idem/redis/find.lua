-- find: KEYS[1] the record.
-- Answers {state, token, attempt, fingerprint, lease end, retention end, phase, state, status,
-- headers, body} for a live record (missing fields nil), or an empty list if it is absent, released
-- or expired.
local r = redis.call('HMGET', KEYS[1], 's', 't', 'a', 'f', 'l', 'e', 'p', 'q', 'c', 'h', 'b')
local state = tonumber(r[1])
local now = clock()
if state == nil or not live(state, tonumber(r[5]), tonumber(r[6]), now) then
  return {}
end
return r
