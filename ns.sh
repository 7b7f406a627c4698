. ./funcs.sh
"$IOTRACE" --engine=agent -o /dev/null -- sh reuse.sh &
ipid=$!
wait_for "grep -q ready ready" || exit 1
'''
new='''# a pid namespace where nothing else takes pids (ns.sh forks nothing
# until reuse.sh has forked: it waits on a fifo; before, its polling's
# grep and sleep took the pid now and then); the namespace's end kills
# whatever is left.
cat >reuse.sh <<\\EOF
sleep 0 & x=$!
wait $x
echo $((x - 1)) >/proc/sys/kernel/ns_last_pid
"$HELPERS/sigcount" >ready & echo $! >reused
echo $x >first
echo >forked
wait
EOF
cat >ns.sh <<\\EOF
. ./funcs.sh
rm -f forked && mkfifo forked || exit 1
"$IOTRACE" --engine=agent -o /dev/null -- sh reuse.sh &
ipid=$!
read x <forked
wait_for "grep -q ready ready" || exit 1
'''
assert old in s, "t5"
s=s.replace(old,new)
open(p,'w').write(s)
EOF
sh tests/t0032-kill-detached.sh
