# Embeds text resources (shaders, colormap tables) into a C++ source, so the renderer needs
# neither Qt's resource system nor files beside the binary.
function(warpscope_embed_resources target)
    set(out ${CMAKE_CURRENT_BINARY_DIR}/${target}_EmbeddedResources.cpp)
    set(script ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/EmbedResourcesScript.cmake)
    add_custom_command(
        OUTPUT ${out}
        COMMAND ${CMAKE_COMMAND} -DOUTPUT=${out} "-DFILES=${ARGN}" -P ${script}
        DEPENDS ${ARGN} ${script}
        COMMENT "Embedding resources into ${target}"
        VERBATIM)
    target_sources(${target} PRIVATE ${out})
endfunction()
