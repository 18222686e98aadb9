// SPDX-License-Identifier: MIT
// FCL 0.7 as a narrow3d peer: its two narrow-phase solvers called directly,
// as FCL's own collide() and distance() call them for a pair of shapes.
//
// GJKSolver_libccd runs FCL's copy of libccd (MPR for collision, GJK for
// distance, EPA for signed distance); GJKSolver_indep runs FCL's own GJK and
// EPA. Polytopes are fcl::Convex built from the hull's triangles (watertight,
// so FCL's support walks the vertex graph above 32 vertices); the other
// shapes are FCL's primitives. Some pairs never reach GJK, by FCL's own
// dispatch: capsule-capsule distance is closed form in both solvers, and
// box-box collision in the indep solver is the box-box test of ODE.
//
// FCL 0.7's GJKSolver_indep gives its EPA contact normal in a's frame and
// its depth negated; fcl3_one turns both into the world's conventions.
#include <fcl/config.h>
#include <fcl/geometry/shape/box.h>
#include <fcl/geometry/shape/capsule.h>
#include <fcl/geometry/shape/convex.h>
#include <fcl/geometry/shape/ellipsoid.h>
#include <fcl/narrowphase/contact_point.h>
#include <fcl/narrowphase/detail/gjk_solver_indep.h>
#include <fcl/narrowphase/detail/gjk_solver_libccd.h>

#include <cmath>
#include <memory>
#include <new>
#include <vector>

#include "peers3.h"

typedef fcl::Transform3<double> transform;
typedef std::vector<transform, Eigen::aligned_allocator<transform>> transform_list;

struct fcl3_set {
	ds3_pairing pairing;
	int count;
	std::vector<std::unique_ptr<fcl::ShapeBase<double>>> shapes; // a then b of each pair
	transform_list poses;
	fcl::detail::GJKSolver_libccd<double> ccd;
	fcl::detail::GJKSolver_indep<double> indep;
};

extern "C" const char *fcl3_method_name(fcl3_method method)
{
	static const char *const names[FCL3_METHOD_COUNT] = {
		"FCL libccd shapeDistance", "FCL libccd shapeSignedDistance", "FCL libccd shapeIntersect",
		"FCL libccd shapeIntersect+contact", "FCL indep shapeDistance", "FCL indep shapeIntersect",
		"FCL indep shapeIntersect+contact",
	};
	return (int)method >= 0 && method < FCL3_METHOD_COUNT ? names[method] : "?";
}

extern "C" const char *fcl3_version(void)
{
	return FCL_VERSION;
}

static std::unique_ptr<fcl::ShapeBase<double>> make_shape(const ds3_shape *s)
{
	switch (s->kind) {
	case DS3_POLYTOPE: {
		auto vertices = std::make_shared<std::vector<fcl::Vector3<double>>>();
		auto faces = std::make_shared<std::vector<int>>();
		vertices->reserve((size_t)s->vertex_count);
		for (int i = 0; i < s->vertex_count; i++)
			vertices->emplace_back(s->vertices[i].x, s->vertices[i].y, s->vertices[i].z);
		faces->reserve((size_t)s->triangle_count * 4);
		for (int f = 0; f < s->triangle_count; f++) {
			faces->push_back(3);
			for (int k = 0; k < 3; k++)
				faces->push_back(s->triangles[3 * f + k]);
		}
		return std::unique_ptr<fcl::ShapeBase<double>>(
			new fcl::Convex<double>(vertices, s->triangle_count, faces));
	}
	case DS3_BOX:
		return std::unique_ptr<fcl::ShapeBase<double>>(
			new fcl::Box<double>(2.0 * s->size.x, 2.0 * s->size.y, 2.0 * s->size.z));
	case DS3_CAPSULE:
		return std::unique_ptr<fcl::ShapeBase<double>>(
			new fcl::Capsule<double>(s->radius, 2.0 * s->half_length));
	case DS3_ELLIPSOID:
		return std::unique_ptr<fcl::ShapeBase<double>>(
			new fcl::Ellipsoid<double>(s->size.x, s->size.y, s->size.z));
	default:
		return nullptr;
	}
}

static transform make_pose(imp_pose3 p)
{
	transform t = transform::Identity();
	t.linear() = fcl::Quaternion<double>(p.q.w, p.q.x, p.q.y, p.q.z).toRotationMatrix();
	t.translation() = fcl::Vector3<double>(p.p.x, p.p.y, p.p.z);
	return t;
}

extern "C" fcl3_set *fcl3_create(const ds3_cell *cell)
{
	fcl3_set *set = new (std::nothrow) fcl3_set;
	if (!set)
		return nullptr;
	try {
		set->pairing = cell->pairing;
		set->count = cell->count;
		set->shapes.reserve((size_t)cell->count * 2);
		set->poses.reserve((size_t)cell->count * 2);
		for (int i = 0; i < cell->count; i++) {
			const ds3_pair *p = &cell->pairs[i];
			set->shapes.push_back(make_shape(p->a));
			set->shapes.push_back(make_shape(p->b));
			if (!set->shapes[2 * i] || !set->shapes[2 * i + 1]) {
				delete set;
				return nullptr;
			}
			set->poses.push_back(make_pose(p->pa));
			set->poses.push_back(make_pose(p->pb));
		}
	} catch (...) {
		delete set;
		return nullptr;
	}
	return set;
}

extern "C" void fcl3_destroy(fcl3_set *set)
{
	delete set;
}

static imp_vec3 to_vec(const fcl::Vector3<double> &v)
{
	return imp_vec3_make(v[0], v[1], v[2]);
}

/// Whether GJKSolver_indep::shapeIntersect with a contact runs its EPA for
/// these shapes (box-box has its own test, with world conventions).
template <class SA, class SB>
struct indep_contact_is_epa {
	static const bool value = true;
};
template <>
struct indep_contact_is_epa<fcl::Box<double>, fcl::Box<double>> {
	static const bool value = false;
};

/// The loops and single answers for one pairing's shape types.
template <class SA, class SB>
struct typed {
	static const SA &a(const fcl3_set *set, int i)
	{
		return *static_cast<const SA *>(set->shapes[2 * i].get());
	}

	static const SB &b(const fcl3_set *set, int i)
	{
		return *static_cast<const SB *>(set->shapes[2 * i + 1].get());
	}

	static double loop(const fcl3_set *set, fcl3_method method, int count)
	{
		const transform_list &t = set->poses;
		double sum = 0.0, d = 0.0;
		// FCL 0.7's closed-form capsule distance asserts that it is given
		// the witness pointers: every distance call gets them.
		fcl::Vector3<double> p1, p2;
		std::vector<fcl::ContactPoint<double>> contacts;
		switch (method) {
		case FCL3_CCD_DISTANCE:
			for (int i = 0; i < count; i++) {
				set->ccd.shapeDistance(a(set, i), t[2 * i], b(set, i), t[2 * i + 1], &d, &p1, &p2);
				sum += d;
			}
			break;
		case FCL3_CCD_SIGNED_DISTANCE:
			for (int i = 0; i < count; i++) {
				set->ccd.shapeSignedDistance(a(set, i), t[2 * i], b(set, i), t[2 * i + 1], &d, &p1,
							     &p2);
				sum += d;
			}
			break;
		case FCL3_CCD_COLLIDE:
			for (int i = 0; i < count; i++)
				sum += set->ccd.shapeIntersect(a(set, i), t[2 * i], b(set, i), t[2 * i + 1]);
			break;
		case FCL3_CCD_CONTACT:
			for (int i = 0; i < count; i++) {
				contacts.clear();
				bool hit = set->ccd.shapeIntersect(a(set, i), t[2 * i], b(set, i), t[2 * i + 1],
								   &contacts);
				if (hit && !contacts.empty())
					sum += contacts[0].penetration_depth;
			}
			break;
		case FCL3_INDEP_DISTANCE:
			for (int i = 0; i < count; i++) {
				set->indep.shapeDistance(a(set, i), t[2 * i], b(set, i), t[2 * i + 1], &d, &p1, &p2);
				sum += d;
			}
			break;
		case FCL3_INDEP_COLLIDE:
			for (int i = 0; i < count; i++)
				sum += set->indep.shapeIntersect(a(set, i), t[2 * i], b(set, i), t[2 * i + 1]);
			break;
		case FCL3_INDEP_CONTACT:
			for (int i = 0; i < count; i++) {
				contacts.clear();
				bool hit = set->indep.shapeIntersect(a(set, i), t[2 * i], b(set, i), t[2 * i + 1],
								     &contacts);
				if (hit && !contacts.empty())
					sum += contacts[0].penetration_depth;
			}
			break;
		default:
			break;
		}
		return sum;
	}

	/// A distance call's answer: separated when FCL says so.
	static void distance_answer(bool separated, double d, const fcl::Vector3<double> &p1,
				    const fcl::Vector3<double> &p2, peer3_answer *out)
	{
		out->status = separated;
		out->overlap = !separated || d <= 0.0;
		if (!separated && d == -1.0)
			return; // FCL's "no distance": overlapping, nothing else said
		out->distance = d;
		out->point_a = to_vec(p1);
		out->point_b = to_vec(p2);
		// (p2 - p1) / d points from a to b for either sign of d.
		if (d != 0.0)
			out->normal = imp_vec3_scale(1.0 / d, imp_vec3_sub(out->point_b, out->point_a));
	}

	static void one(const fcl3_set *set, fcl3_method method, int i, peer3_answer *out)
	{
		const transform &ta = set->poses[2 * i], &tb = set->poses[2 * i + 1];
		double d = NAN;
		fcl::Vector3<double> p1 = fcl::Vector3<double>::Zero(), p2 = fcl::Vector3<double>::Zero();
		std::vector<fcl::ContactPoint<double>> contacts;
		bool r;
		switch (method) {
		case FCL3_CCD_DISTANCE:
			r = set->ccd.shapeDistance(a(set, i), ta, b(set, i), tb, &d, &p1, &p2);
			distance_answer(r, d, p1, p2, out);
			break;
		case FCL3_CCD_SIGNED_DISTANCE:
			r = set->ccd.shapeSignedDistance(a(set, i), ta, b(set, i), tb, &d, &p1, &p2);
			distance_answer(r, d, p1, p2, out);
			break;
		case FCL3_INDEP_DISTANCE:
			r = set->indep.shapeDistance(a(set, i), ta, b(set, i), tb, &d, &p1, &p2);
			distance_answer(r, d, p1, p2, out);
			break;
		case FCL3_CCD_COLLIDE:
			r = set->ccd.shapeIntersect(a(set, i), ta, b(set, i), tb);
			out->status = r;
			out->overlap = r;
			break;
		case FCL3_INDEP_COLLIDE:
			r = set->indep.shapeIntersect(a(set, i), ta, b(set, i), tb);
			out->status = r;
			out->overlap = r;
			break;
		case FCL3_CCD_CONTACT:
		case FCL3_INDEP_CONTACT: {
			bool indep = method == FCL3_INDEP_CONTACT;
			r = indep ? set->indep.shapeIntersect(a(set, i), ta, b(set, i), tb, &contacts)
				  : set->ccd.shapeIntersect(a(set, i), ta, b(set, i), tb, &contacts);
			out->status = r;
			out->overlap = r;
			if (r && !contacts.empty()) {
				const fcl::ContactPoint<double> &c = contacts[0];
				fcl::Vector3<double> n = c.normal;
				if (indep && indep_contact_is_epa<SA, SB>::value)
					n = ta.linear() * n;
				out->distance = -std::fabs(c.penetration_depth);
				out->normal = to_vec(n);
			}
			break;
		}
		default:
			out->status = -1;
			out->overlap = false;
			break;
		}
	}
};

typedef fcl::Convex<double> convex;
typedef fcl::Box<double> box;
typedef fcl::Capsule<double> capsule;
typedef fcl::Ellipsoid<double> ellipsoid;

extern "C" double fcl3_loop(const fcl3_set *set, fcl3_method method, int count)
{
	switch (set->pairing) {
	case DS3_BOXES:
		return typed<box, box>::loop(set, method, count);
	case DS3_CAPSULES:
		return typed<capsule, capsule>::loop(set, method, count);
	case DS3_ELLIPSOIDS:
		return typed<ellipsoid, ellipsoid>::loop(set, method, count);
	case DS3_BOX_ELLIPSOID:
		return typed<box, ellipsoid>::loop(set, method, count);
	default:
		return typed<convex, convex>::loop(set, method, count);
	}
}

extern "C" void fcl3_one(const fcl3_set *set, fcl3_method method, int i, peer3_answer *out)
{
	out->distance = NAN;
	out->point_a = out->point_b = out->normal = imp_vec3_make(NAN, NAN, NAN);
	switch (set->pairing) {
	case DS3_BOXES:
		typed<box, box>::one(set, method, i, out);
		break;
	case DS3_CAPSULES:
		typed<capsule, capsule>::one(set, method, i, out);
		break;
	case DS3_ELLIPSOIDS:
		typed<ellipsoid, ellipsoid>::one(set, method, i, out);
		break;
	case DS3_BOX_ELLIPSOID:
		typed<box, ellipsoid>::one(set, method, i, out);
		break;
	default:
		typed<convex, convex>::one(set, method, i, out);
		break;
	}
}
