# 100 000 page moves and page-outs under a process that writes all of its
# memory at random, then its own check of every byte and write. masim's
# phase outlasts the moves (about 90 s alone under TCG, longer on a busy
# host): torture ends first and masim is then stopped.
. /files/lib.sh
cat > /tmp/all.cfg <<'CFG'
all, 33554432

everything
300000
all, 1, 64, 1
CFG
start_masim /tmp/all.cfg
thermocline torture --pid $M --moves 100000 --batch 256
echo TORTURE-EXIT=$?
kill -USR1 $M
# masim checks itself on SIGUSR1, and on SIGTERM it ends early, checks and
# reports as at its end
sleep 2
kill -TERM $M
wait $M; echo MASIM-EXIT=$?
cat /tmp/masim.out
