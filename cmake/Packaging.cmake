# Release packaging and the release's identity (docs/release.md).
#
# 1. The data versions `rightsize --version` names: read here from the data files the build
#    compiles in, so that the binary reports them without reading a file at run time.
# 2. CPack: `cmake --build build --target package` (or `cpack` in the build directory) writes
#    rightsize-<version>-<system>-<arch>.tar.gz and, where dpkg-deb exists, the .deb of the same
#    name. Both hold what `cmake --install` installs: bin/rightsize and share/rightsize/ (the data
#    the installed binary finds beside it, src/cli/common_options.cpp bundled_data_dir()).
#
# Included once, at the end of the top-level CMakeLists.txt, after every install() rule.

# --- Data versions -------------------------------------------------------------------------------
# One version per versioned data file: gpus.json's catalog_version and engines.json's
# engines_version (CalVer YYYY.MM.N, docs/release.md). The other data files carry no version of
# their own: they are versioned by the release that bundles them.
function(rightsize_data_version out file key)
  file(READ ${PROJECT_SOURCE_DIR}/data/${file} text)
  # A regular expression rather than string(JSON): CMake 3.18 is the floor, string(JSON) is 3.19.
  if(NOT text MATCHES "\"${key}\"[ \t\r\n]*:[ \t\r\n]*\"([0-9]+\\.[0-9]+\\.[0-9]+)\"")
    message(FATAL_ERROR "rightsize: data/${file} has no \"${key}\": \"YYYY.MM.N\" "
                        "(docs/release.md)")
  endif()
  set(${out} ${CMAKE_MATCH_1} PARENT_SCOPE)
endfunction()

rightsize_data_version(RIGHTSIZE_CATALOG_VERSION gpus.json catalog_version)
rightsize_data_version(RIGHTSIZE_ENGINES_VERSION engines.json engines_version)
# An edit of either file configures again, so the version compiled in is never stale.
set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${PROJECT_SOURCE_DIR}/data/gpus.json ${PROJECT_SOURCE_DIR}/data/engines.json)
# Only app.cpp (the --version flag) sees them: a data release recompiles one file.
set_property(SOURCE ${PROJECT_SOURCE_DIR}/src/cli/app.cpp TARGET_DIRECTORY rightsize_cli
             APPEND PROPERTY COMPILE_DEFINITIONS
             RIGHTSIZE_CATALOG_VERSION="${RIGHTSIZE_CATALOG_VERSION}"
             RIGHTSIZE_ENGINES_VERSION="${RIGHTSIZE_ENGINES_VERSION}")
message(STATUS "rightsize ${PROJECT_VERSION}: catalog ${RIGHTSIZE_CATALOG_VERSION}, "
               "engines ${RIGHTSIZE_ENGINES_VERSION}")

# --- CPack ---------------------------------------------------------------------------------------
# CPackConfig.cmake is written when CPack.cmake is included, from the CPACK_* variables set then.
# If an earlier include(CPack) has already written it (the top-level file's `include(CPack)` for a
# plain tarball, until it is removed), it also left variables of its source-package half behind
# (CPACK_INSTALLED_DIRECTORIES = the source tree, CPACK_PACKAGE_FILE_NAME = ...-Source, ...): clear
# every CPACK_* variable it set, then include it again below with ours.
if(CPack_CMake_INCLUDED)
  get_cmake_property(rightsize_variables VARIABLES)
  foreach(variable IN LISTS rightsize_variables)
    if(variable MATCHES "^CPACK_")
      unset(${variable}) # the normal variable only: a -DCPACK_...=... from the command line stays
    endif()
  endforeach()
  unset(CPack_CMake_INCLUDED)
  unset(rightsize_variables)
endif()

set(CPACK_PACKAGE_NAME rightsize)
set(CPACK_PACKAGE_VENDOR "rightsize")
set(CPACK_PACKAGE_CONTACT "rightsize maintainers <rightsize@example.com>"
    CACHE STRING "Maintainer of the packages (the .deb's Maintainer field)")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "GPU right-sizing advisor: which GPUs, how many, at what cost")
# Lines of at most 80 columns: the .deb's extended description keeps them as they are.
string(CONCAT CPACK_PACKAGE_DESCRIPTION
       "rightsize reads a model and its workload, estimates the memory, compute and\n"
       "interconnect it needs, and ranks GPU configurations from a sourced catalog by\n"
       "cost. `rightsize check` fails a CI job when a change raises the GPU bill or\n"
       "stops fitting. Bundled data: GPU catalog ${RIGHTSIZE_CATALOG_VERSION}, engine support "
       "${RIGHTSIZE_ENGINES_VERSION}.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VERSION_MAJOR ${PROJECT_VERSION_MAJOR})
set(CPACK_PACKAGE_VERSION_MINOR ${PROJECT_VERSION_MINOR})
set(CPACK_PACKAGE_VERSION_PATCH ${PROJECT_VERSION_PATCH})
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_RESOURCE_FILE_README ${PROJECT_SOURCE_DIR}/README.md)
set(CPACK_PACKAGE_CHECKSUM SHA256) # <file>.sha256 beside each package, for the CI actions
set(CPACK_STRIP_FILES ON)
set(CPACK_VERBATIM_VARIABLES ON)
set(CPACK_THREADS 1)
# Only the install rules of this project, never a component subset (no install() names one).
set(CPACK_MONOLITHIC_INSTALL ON)
set(CPACK_SOURCE_GENERATOR TGZ)
set(CPACK_SOURCE_IGNORE_FILES "/\\.git/" "/build[^/]*/" "/install/" "/\\.gl/")

# rightsize-<version>-<system>-<arch>: rightsize-0.1.0-Linux-x86_64.tar.gz, and the .deb named the
# same way rather than Debian's rightsize_0.1.0_amd64.deb, so that one pattern downloads either.
if(CMAKE_SYSTEM_PROCESSOR)
  set(rightsize_arch ${CMAKE_SYSTEM_PROCESSOR})
else()
  set(rightsize_arch unknown)
endif()
set(CPACK_SYSTEM_NAME ${CMAKE_SYSTEM_NAME}-${rightsize_arch})
set(CPACK_PACKAGE_FILE_NAME ${CPACK_PACKAGE_NAME}-${CPACK_PACKAGE_VERSION}-${CPACK_SYSTEM_NAME})
set(CPACK_SOURCE_PACKAGE_FILE_NAME ${CPACK_PACKAGE_NAME}-${CPACK_PACKAGE_VERSION}-source)
# The tarball unpacks to rightsize-<version>-<system>-<arch>/{bin,share} (CPack's default for
# archives); the .deb installs to /usr (its default), so the binary is /usr/bin/rightsize and finds
# /usr/share/rightsize.

# TGZ always; DEB where dpkg-deb can build it. `cpack -G TGZ` or `-G DEB` picks one.
set(CPACK_GENERATOR TGZ)
find_program(RIGHTSIZE_DPKG_DEB dpkg-deb)
if(RIGHTSIZE_DPKG_DEB)
  list(APPEND CPACK_GENERATOR DEB)
endif()

set(CPACK_DEBIAN_PACKAGE_NAME rightsize)
set(CPACK_DEBIAN_FILE_NAME ${CPACK_PACKAGE_FILE_NAME}.deb)
set(CPACK_DEBIAN_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# No placeholder: the release build names its repository (-DCPACK_DEBIAN_PACKAGE_HOMEPAGE=
# https://github.com/OWNER/rightsize, docs/release.md); empty, the .deb has no Homepage field.
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE ""
    CACHE STRING "Homepage field of the .deb (https://github.com/OWNER/rightsize)")
# The binary links libstdc++ and libgcc statically by default (RIGHTSIZE_STATIC_RUNTIME), and
# SQLite from libsqlite3.a, so it needs only libc and libm: dpkg-shlibdeps (dpkg-dev) computes the
# exact Depends from the binary (on bookworm: libc6 (>= 2.36)). Without it: libc6 at least as new
# as the build machine's, which the binary may use, and for a build with the shared C++ runtime
# (sanitizers, fuzzing: never a release) the libraries it then loads, by their bookworm names.
find_program(RIGHTSIZE_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(RIGHTSIZE_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS libc6)
  execute_process(COMMAND getconf GNU_LIBC_VERSION OUTPUT_VARIABLE rightsize_glibc ERROR_QUIET)
  if(rightsize_glibc MATCHES "glibc ([0-9]+\\.[0-9]+)")
    set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= ${CMAKE_MATCH_1})")
  endif()
  if(NOT (RIGHTSIZE_STATIC_RUNTIME AND RIGHTSIZE_SQLITE3_STATIC))
    string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libsqlite3-0")
  endif()
  if(NOT RIGHTSIZE_STATIC_RUNTIME)
    string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libstdc++6, libgcc-s1, libfmt9, libspdlog1.10, "
                                               "libyaml-cpp0.7")
  endif()
endif()
# libcurl is dlopen()ed by `observe --prometheus` only (src/observe/curl_api.hpp), which
# dpkg-shlibdeps cannot see: a Recommends, which apt installs by default and a minimal system may
# leave out. 7.62.0 has the URL API (curl_url) that it needs.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libcurl4 (>= 7.62.0)")

include(CPack)
