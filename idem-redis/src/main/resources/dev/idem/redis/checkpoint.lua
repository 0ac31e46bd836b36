-- checkpoint: KEYS[1] the record. ARGV[1] token, ARGV[2] phase, ARGV[3] state.
-- 1 if stored; 0 if the record is not in progress with exactly that token (nothing changed).
local rec = KEYS[1]
local r = redis.call('HMGET', rec, 's', 't')
if r[1] ~= '0' or r[2] ~= ARGV[1] then
  return 0
end
redis.call('HSET', rec, 'p', ARGV[2], 'q', ARGV[3])
return 1
