# cmake --install: the tools and their data (component runtime), and the
# libraries, headers and a package config for find_package(pimc) (component
# dev). The tree is the build tree's: bin/pimc finds ../share/pimc. CPack
# makes one .deb of each component.
include(CMakePackageConfigHelpers)

install(TARGETS pimc pimc-opt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/ DESTINATION ${PIMC_DATA_DIR}/configs
        COMPONENT runtime)
install(DIRECTORY ${PIMC_BUILD_DATA_DIR}/models DESTINATION ${PIMC_DATA_DIR} COMPONENT runtime)

get_property(PIMC_LIBRARIES GLOBAL PROPERTY PIMC_LIBRARIES)
# The protobuf reader is built apart (with exceptions), below PimcFrontend.
list(APPEND PIMC_LIBRARIES PimcOnnxProto)
install(TARGETS ${PIMC_LIBRARIES} EXPORT pimcTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
foreach(include_dir ${PROJECT_SOURCE_DIR}/include/pimc ${PROJECT_BINARY_DIR}/include/pimc)
  install(DIRECTORY ${include_dir} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev
          FILES_MATCHING PATTERN "*.h" PATTERN "*.inc" PATTERN "*.td"
          PATTERN "CMakeFiles" EXCLUDE)
endforeach()
set(PIMC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/pimc)
install(EXPORT pimcTargets NAMESPACE pimc:: DESTINATION ${PIMC_CMAKE_DIR} COMPONENT dev)
configure_package_config_file(cmake/pimcConfig.cmake.in
  ${PROJECT_BINARY_DIR}/pimcConfig.cmake INSTALL_DESTINATION ${PIMC_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/pimcConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pimcConfig.cmake ${PROJECT_BINARY_DIR}/pimcConfigVersion.cmake
        DESTINATION ${PIMC_CMAKE_DIR} COMPONENT dev)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME pimc)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "ONNX compiler for ReRAM processing-in-memory chips (pimsim-nn)")
set(CPACK_PACKAGE_CONTACT "pimc developers <pimc@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME pimc)
# The shared libraries pimc links (MLIR, protobuf, onnx), as Debian packages
# them; LLVM's is found through LLVM's directory, which llvm-19-dev's
# symlink makes, so its runtime package is named.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS libllvm19)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME pimc-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "pimc (= ${PROJECT_VERSION}), libmlir-19-dev, mlir-19-tools, llvm-19-dev, llvm-19-tools, libonnx-dev, libprotobuf-dev")
include(CPack)
