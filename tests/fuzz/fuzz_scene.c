/* libFuzzer target: JSON scene text -> ctn_scene_parse_text; a scene that parses and is small
 * is also built into a CPU world and stepped once with clamped solver settings, so the builder and the
 * first step see fuzzed (but validated) input too. Also linked into fuzz_replay (tests/CMakeLists.txt). */
#include "catena/catena.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ctn_scene *scene = NULL;
    char err[512];
    if (ctn_scene_parse_text((const char *)data, size, "fuzz.json", &scene, err, sizeof err) != CTN_OK) return 0;
    ctn_world_desc desc;
    int steps = 0;
    ctn_scene_get_settings(scene, &desc, &steps);
    /* keep one input fast: small worlds only, few iterations, CPU backend */
    if (ctn_scene_body_count(scene) <= 2000 && ctn_scene_joint_count(scene) <= 4000) {
        desc.backend = CTN_BACKEND_CPU;
        desc.device = NULL;
        desc.threads = 1;
        if (desc.iterations > 8) desc.iterations = 8;
        if (desc.substeps > 4) desc.substeps = 4;
        ctn_world *w = NULL;
        if (ctn_world_create(&desc, &w, err, sizeof err) == CTN_OK) {
            if (ctn_scene_build(scene, w) == CTN_OK) ctn_world_step(w);
            ctn_world_destroy(w);
        }
    }
    ctn_scene_free(scene);
    return 0;
}
