#include <dlfcn.h>
#include <proj.h>
#include <geodesic.h>

/* The PROJ functions WellKit calls. They are resolved at run time (see `LibProj.swift`):
 * linking libproj would make every process load it and its ~40 dependencies at start-up,
 * even `wells --help` and `wells bbox`, which never use PROJ (Benchmarks/README.md, "Start-up"). */
#define WK_PROJ_FUNCTIONS(X) \
    X(geod_init) X(geod_inverse) \
    X(proj_area_create) X(proj_area_destroy) X(proj_area_set_bbox) X(proj_as_proj_string) X(proj_as_wkt) \
    X(proj_context_create) X(proj_context_destroy) X(proj_context_errno) X(proj_context_errno_string) \
    X(proj_context_is_network_enabled) X(proj_coordoperation_get_accuracy) X(proj_coordoperation_get_grid_used) \
    X(proj_coordoperation_get_grid_used_count) X(proj_coordoperation_has_ballpark_transformation) \
    X(proj_coordoperation_is_instantiable) X(proj_create) X(proj_create_crs_to_crs_from_pj) X(proj_create_from_name) \
    X(proj_create_operation_factory_context) X(proj_create_operations) X(proj_crs_get_datum_forced) \
    X(proj_crs_get_horizontal_datum) X(proj_crs_info_list_destroy) X(proj_destroy) X(proj_errno) X(proj_errno_reset) X(proj_get_area_of_use) \
    X(proj_get_crs_info_list_from_database) X(proj_get_crs_list_parameters_create) X(proj_get_crs_list_parameters_destroy) \
    X(proj_get_id_auth_name) X(proj_get_id_code) X(proj_get_name) X(proj_get_type) X(proj_is_crs) \
    X(proj_list_destroy) X(proj_list_get) X(proj_list_get_count) X(proj_log_func) \
    X(proj_normalize_for_visualization) X(proj_operation_factory_context_destroy) \
    X(proj_operation_factory_context_set_area_of_interest) \
    X(proj_operation_factory_context_set_grid_availability_use) \
    X(proj_operation_factory_context_set_spatial_criterion) X(proj_trans_generic) \
    X(proj_trans_get_last_used_operation)

/* One function pointer per PROJ function, with the function's own name and type. */
typedef struct WKProj {
#define WK_PROJ_FIELD(name) __typeof__(&name) name;
    WK_PROJ_FUNCTIONS(WK_PROJ_FIELD)
#undef WK_PROJ_FIELD
} WKProj;

/* Fills `api` from `handle`, a dlopen handle of libproj. Returns NULL, or the first missing symbol. */
static inline const char *wk_proj_resolve(void *handle, WKProj *api) {
#define WK_PROJ_RESOLVE(name) if (!(api->name = (__typeof__(&name))dlsym(handle, #name))) return #name;
    WK_PROJ_FUNCTIONS(WK_PROJ_RESOLVE)
#undef WK_PROJ_RESOLVE
    return 0;
}
