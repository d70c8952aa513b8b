// URDF files through urdfdom (Debian liburdfdom-dev), the parser of the ROS community, into the plain C
// description of urdf_model.h. The only C++ in Catena: urdfdom's interface is C++. Everything else about
// URDF (frames, inertia, joint and shape mapping) is C, in urdf_import.c.
#include "core/alloc.h"
#include "io/urdf_model.h"

#include "catena/catena.h"

#include <console_bridge/console.h>
#include <urdf_parser/urdf_parser.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <vector>

namespace {

// urdfdom reports through console_bridge, which prints by default; the library never prints, so the
// messages of one parse are collected and become the error text. console_bridge's handler is global:
// parses are serialised.
class collect_messages : public console_bridge::OutputHandler {
  public:
    std::string text;
    void log(const std::string &line, console_bridge::LogLevel level, const char *, int) override {
        if (level < console_bridge::CONSOLE_BRIDGE_LOG_WARN) return;
        if (!text.empty()) text += "; ";
        text += line;
    }
};
std::mutex parse_lock;

char *copy_string(const std::string &s) {
    char *c = static_cast<char *>(ctn__malloc(s.size() + 1));
    if (!c) throw std::bad_alloc();
    std::memcpy(c, s.c_str(), s.size() + 1);
    return c;
}

ctn_urdf_pose pose_of(const urdf::Pose &p) {
    ctn_urdf_pose o;
    o.xyz[0] = p.position.x, o.xyz[1] = p.position.y, o.xyz[2] = p.position.z;
    o.q[0] = p.rotation.w, o.q[1] = p.rotation.x, o.q[2] = p.rotation.y, o.q[3] = p.rotation.z;
    return o;
}

void convert_collision(const urdf::Collision &c, ctn_urdf_collision *o) {
    std::memset(o, 0, sizeof *o);
    o->name = copy_string(c.name);
    o->origin = pose_of(c.origin);
    switch (c.geometry->type) {
    case urdf::Geometry::SPHERE:
        o->type = CTN_URDF_SPHERE;
        o->radius = static_cast<const urdf::Sphere &>(*c.geometry).radius;
        break;
    case urdf::Geometry::BOX: {
        const urdf::Vector3 &d = static_cast<const urdf::Box &>(*c.geometry).dim;
        o->type = CTN_URDF_BOX;
        o->size[0] = d.x, o->size[1] = d.y, o->size[2] = d.z;
        break;
    }
    case urdf::Geometry::CYLINDER: {
        const urdf::Cylinder &cy = static_cast<const urdf::Cylinder &>(*c.geometry);
        o->type = CTN_URDF_CYLINDER;
        o->radius = cy.radius;
        o->length = cy.length;
        break;
    }
    default:
        o->type = CTN_URDF_MESH;
        o->mesh = copy_string(static_cast<const urdf::Mesh &>(*c.geometry).filename);
        break;
    }
}

void convert_link(const urdf::Link &l, int parent_joint, ctn_urdf_link *o) {
    o->name = copy_string(l.name);
    o->parent_joint = parent_joint;
    if (l.inertial) {
        const urdf::Inertial &i = *l.inertial;
        o->has_inertial = 1;
        o->mass = i.mass;
        o->inertial = pose_of(i.origin);
        o->ixx = i.ixx, o->ixy = i.ixy, o->ixz = i.ixz, o->iyy = i.iyy, o->iyz = i.iyz, o->izz = i.izz;
    }
    std::vector<const urdf::Collision *> cols;
    for (const urdf::CollisionSharedPtr &c : l.collision_array)
        if (c && c->geometry) cols.push_back(c.get());
    if (cols.empty() && l.collision && l.collision->geometry) cols.push_back(l.collision.get());
    if (cols.empty()) return;
    o->collisions = static_cast<ctn_urdf_collision *>(ctn__calloc(cols.size(), sizeof *o->collisions));
    if (!o->collisions) throw std::bad_alloc();
    for (const urdf::Collision *c : cols) convert_collision(*c, &o->collisions[o->collision_count++]);
}

void convert_joint(const urdf::Joint &j, int parent, int child, ctn_urdf_joint *o) {
    o->name = copy_string(j.name);
    switch (j.type) {
    case urdf::Joint::REVOLUTE: o->type = CTN_URDF_REVOLUTE; break;
    case urdf::Joint::CONTINUOUS: o->type = CTN_URDF_CONTINUOUS; break;
    case urdf::Joint::PRISMATIC: o->type = CTN_URDF_PRISMATIC; break;
    case urdf::Joint::FLOATING: o->type = CTN_URDF_FLOATING; break;
    case urdf::Joint::PLANAR: o->type = CTN_URDF_PLANAR; break;
    default: o->type = CTN_URDF_FIXED; break; // urdfdom refuses unknown types while parsing
    }
    o->parent = parent;
    o->child = child;
    o->origin = pose_of(j.parent_to_joint_origin_transform);
    o->axis[0] = j.axis.x, o->axis[1] = j.axis.y, o->axis[2] = j.axis.z;
    if (j.limits) {
        o->has_limits = 1;
        o->lower = j.limits->lower, o->upper = j.limits->upper;
        o->effort = j.limits->effort, o->velocity = j.limits->velocity;
    }
    if (j.dynamics) o->damping = j.dynamics->damping, o->friction = j.dynamics->friction;
    if (j.mimic) {
        o->mimic = copy_string(j.mimic->joint_name);
        o->mimic_multiplier = j.mimic->multiplier;
        o->mimic_offset = j.mimic->offset;
    }
}

// Depth first from the root, so that every link's parent comes before it.
void convert_tree(const urdf::ModelInterface &m, ctn_urdf_model *o) {
    o->name = copy_string(m.getName());
    size_t n = m.links_.size();
    o->links = static_cast<ctn_urdf_link *>(ctn__calloc(n, sizeof *o->links));
    o->joints = static_cast<ctn_urdf_joint *>(ctn__calloc(n, sizeof *o->joints));
    if (!o->links || !o->joints) throw std::bad_alloc();
    std::vector<std::pair<const urdf::Link *, int>> stack{{m.getRoot().get(), -1}}; // link, index of its parent link
    while (!stack.empty()) {
        const urdf::Link *l = stack.back().first;
        int parent = stack.back().second;
        stack.pop_back();
        int index = o->link_count++;
        int joint = -1;
        if (parent >= 0) {
            joint = o->joint_count++;
            convert_joint(*l->parent_joint, parent, index, &o->joints[joint]);
        }
        convert_link(*l, joint, &o->links[index]);
        for (size_t c = l->child_links.size(); c-- > 0;) stack.push_back({l->child_links[c].get(), index});
    }
}

} // namespace

extern "C" int ctn__urdf_parse(const char *path, ctn_urdf_model **out, char *msg, size_t msg_size) {
    *out = nullptr;
    std::FILE *f = std::fopen(path, "rb");
    if (!f) {
        std::snprintf(msg, msg_size, "%s: cannot open: %s", path, std::strerror(errno));
        return CTN_ERR_IO;
    }
    std::fclose(f);
    ctn_urdf_model *m = static_cast<ctn_urdf_model *>(ctn__calloc(1, sizeof *m));
    if (!m) {
        std::snprintf(msg, msg_size, "%s: out of memory", path);
        return CTN_ERR_OUT_OF_MEMORY;
    }
    try {
        collect_messages messages;
        urdf::ModelInterfaceSharedPtr model;
        {
            std::lock_guard<std::mutex> hold(parse_lock);
            console_bridge::useOutputHandler(&messages);
            model = urdf::parseURDFFile(path);
            console_bridge::restorePreviousOutputHandler();
        }
        if (!model || !model->getRoot()) {
            std::snprintf(msg, msg_size, "%s: not a valid URDF robot: %s", path,
                          messages.text.empty() ? "urdfdom refused it" : messages.text.c_str());
            ctn__urdf_free(m);
            return CTN_ERR_INVALID_ARGUMENT;
        }
        convert_tree(*model, m);
    } catch (const std::bad_alloc &) {
        ctn__urdf_free(m);
        std::snprintf(msg, msg_size, "%s: out of memory", path);
        return CTN_ERR_OUT_OF_MEMORY;
    } catch (const std::exception &e) {
        ctn__urdf_free(m);
        std::snprintf(msg, msg_size, "%s: %s", path, e.what());
        return CTN_ERR_INVALID_ARGUMENT;
    }
    *out = m;
    return CTN_OK;
}

extern "C" void ctn__urdf_free(ctn_urdf_model *m) {
    if (!m) return;
    for (int i = 0; i < m->link_count; ++i) {
        ctn_urdf_link *l = &m->links[i];
        for (int c = 0; c < l->collision_count; ++c) {
            ctn__free(l->collisions[c].name);
            ctn__free(l->collisions[c].mesh);
        }
        ctn__free(l->collisions);
        ctn__free(l->name);
    }
    for (int j = 0; j < m->joint_count; ++j) {
        ctn__free(m->joints[j].name);
        ctn__free(m->joints[j].mimic);
    }
    ctn__free(m->links);
    ctn__free(m->joints);
    ctn__free(m->name);
    ctn__free(m);
}
