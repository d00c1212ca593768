# Sourced by the bench scripts after deploy/local/cluster.sh: seed_launch_campaigns ADMIN DIR uploads DIR's three
# creative shapes to the campaignd at ADMIN (SHAS) and creates the launch benchmarks' 100 live campaigns across 10
# apps ("shop" and app1 ... app9), a day long, with a mix of priorities, weights and targeting.
seed_launch_campaigns() {
  local admin=$1 dir=$2 now end app targeting
  write_creatives "$dir"
  upload_creatives "$admin" "$dir"
  now=$(date -u -d '-1 minute' +%Y-%m-%dT%H:%M:%SZ)
  end=$(date -u -d '+1 day' +%Y-%m-%dT%H:%M:%SZ)
  for i in $(seq 0 99); do
    app=$([ $((i % 10)) = 0 ] && echo shop || echo "app$((i % 10))")
    case $((i % 4)) in
      0) targeting='{}' ;;
      1) targeting='{"platforms":["ios"],"appVersions":{"min":"5.0"}}' ;;
      2) targeting='{"platforms":["android"]}' ;;
      3) targeting='{"regions":["cn-east","cn-north"],"locales":["zh-CN"]}' ;;
    esac
    "$BIN/adctl" --endpoint "$admin" call campaign.create "{\"name\":\"bench $i\",\"app\":\"$app\",\"startsAt\":\"$now\",\"endsAt\":\"$end\",
      \"priority\":$(( (i * 7) % 3 * 10 + 50 )),\"weight\":$(( (i * 13) % 200 + 1 )),\"targeting\":$targeting,
      \"creatives\":[{\"sha256\":\"${SHAS[0]}\",\"weight\":2},{\"sha256\":\"${SHAS[1]}\"},{\"sha256\":\"${SHAS[2]}\"}]}" >/dev/null
  done
}
