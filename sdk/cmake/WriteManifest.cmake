# Writes a plugin manifest after its library is built (called by tessera_add_plugin).
get_filename_component(library_name "${LIBRARY}" NAME)
set(sha_line "")
if(WITH_SHA256)
  file(SHA256 "${LIBRARY}" digest)
  set(sha_line ",\n  \"sha256\": \"${digest}\"")
endif()
file(WRITE "${MANIFEST}.tmp" "{
  \"manifest_version\": 1,
  \"name\": \"${NAME}\",
  \"vendor\": \"${VENDOR}\",
  \"version\": \"${VERSION}\",
  \"abi\": {\"major\": ${ABI_MAJOR}, \"min_minor\": ${ABI_MIN_MINOR}},
  \"library\": \"${library_name}\",
  \"provides\": [${PROVIDES_JSON}],
  \"required_cpu_features\": [${FEATURES_JSON}],
  \"priority\": ${PRIORITY}${sha_line}
}
")
file(RENAME "${MANIFEST}.tmp" "${MANIFEST}")
